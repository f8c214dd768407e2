"""Launch Chromium with the bundled extension in a persistent profile; relaunch it when it dies."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabpilot.browser.discover import find_browser
from tabpilot.paths import Paths
from tabpilot.resources import extension_dir

log = logging.getLogger("tabpilot.browser")

QUIET_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--window-size=1280,900",
    # The "started debugging this browser" bar would shrink the viewport under a click in progress;
    # in the browser Tabpilot launched for itself it says nothing the person does not know.
    "--silent-debugger-extension-api",
)
RELAUNCH_DELAYS_S = (1.0, 2.0, 5.0, 10.0, 30.0)
DISABLED_FEATURES = (
    # Nothing an agent types goes to Google's autofill servers, and no password onboarding.
    "AutofillServerCommunication",
    "PasswordManagerOnboarding",
    # After an input event Chrome holds a page's other tasks back until it has drawn the next frame (for
    # people's responsiveness figures, INP). An action's settle waits for the tasks the action queued (a
    # handler's setTimeout(0), a form's submission), so every click would wait for a frame: 16.7 ms at 60
    # Hz. Here the tasks run when they are due. In a person's own Chrome the deferral stays, and a click
    # there answers after the next frame.
    "DeferRendererTasksAfterInput",
)
FEATURE_ARGS = (f"--disable-features={','.join(DISABLED_FEATURES)}",)
"""One switch for all of them: Chromium reads only the last --disable-features on its command line (this one
comes after Playwright's own list, which it therefore replaces; the managed browser is meant to behave as
a person's Chromium, not as a test harness's)."""
NO_SAVING_PREFS: dict[str, dict[str, Any]] = {
    # What an agent types (a secret from the keyring, a password) must not stay in the profile: no
    # "Save password?", no password store, no autofill tables (Default/Web Data, Login Data).
    "credentials_enable_service": {"": False},
    "credentials_enable_autosignin": {"": False},
    "profile": {"password_manager_enabled": False, "password_manager_leak_detection": False},
    "autofill": {"enabled": False, "profile_enabled": False, "credit_card_enabled": False},
}


def no_saving_preferences(profile: Path) -> None:
    """Merge the preferences that switch password saving and autofill off into the profile (before each
    launch: Chromium rewrites the file, and a person may have changed it in the window)."""
    prefs_file = profile / "Default" / "Preferences"
    prefs_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        prefs = json.loads(prefs_file.read_text(encoding="utf-8"))
        if not isinstance(prefs, dict):
            prefs = {}
    except (OSError, ValueError):
        prefs = {}
    for key, values in NO_SAVING_PREFS.items():
        if "" in values:
            prefs[key] = values[""]
            continue
        section = prefs.get(key)
        prefs[key] = {**(section if isinstance(section, dict) else {}), **values}
    prefs_file.write_text(json.dumps(prefs), encoding="utf-8")
    no_session_files(profile)


def no_session_files(profile: Path) -> None:
    """Chromium keeps each tab's form state (what was typed into text fields) in Default/Sessions, for
    restoring tabs after a restart. The managed browser restores nothing: a plain file where that folder
    would be leaves it nowhere to write (permissions would not stop a browser running as root)."""
    sessions = profile / "Default" / "Sessions"
    if sessions.is_dir() and not sessions.is_symlink():
        shutil.rmtree(sessions, ignore_errors=True)
    if not sessions.exists():
        sessions.write_bytes(b"")
        sessions.chmod(0o400)


def _leave_to_the_extension(dialog: Any) -> None:
    """Playwright's dialog listener: not answering is the point (see _launch)."""


class ManagedBrowser:
    def __init__(
        self, paths: Paths, *, headless: bool, executable: str = "", port: int = 0, relaunch: bool = True
    ) -> None:
        """`port` is the bridge's; set it before `start`. `relaunch`: bring the browser back when it goes
        away (serve); the tray sets it off, because there a closed window is a person's choice."""
        self.paths = paths
        self.headless = headless
        self.executable = executable
        self.port = port
        self.nonce = ""
        """A fresh secret per launch that the extension copy presents: 'already paired' without a prompt."""
        self.launching = False
        self.on_change: Callable[[], None] = lambda: None
        self.on_launch: Callable[[], None] = lambda: None
        self._pw: Any = None
        self._driver: asyncio.Task[None] | None = None
        self._context: Any = None
        self._stopping = False
        self._failures = 0
        self._relaunch: asyncio.Task[None] | None = None
        self.relaunch = relaunch

    @property
    def running(self) -> bool:
        return self._context is not None

    @property
    def context(self) -> Any:
        """The Playwright BrowserContext (for tests and the embedded default)."""
        return self._context

    def _prepare_extension(self) -> Path:
        target = self.paths.managed_extension
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(extension_dir(), target, ignore=shutil.ignore_patterns("node_modules", "*.md", "package*.json"))
        forget_old_workers(self.paths.browser_profile, stamp_build(target))
        self.nonce = secrets.token_urlsafe(24)
        (target / "managed.json").write_text(json.dumps({"port": self.port, "nonce": self.nonce}), encoding="utf-8")
        (target / "managed.json").chmod(0o600)
        return target

    async def start(self) -> None:
        if self._context is not None or self.launching:
            return
        self._stopping = False
        self.launching = True
        self.on_launch()
        self.on_change()
        try:
            await self._launch()
        finally:
            self.launching = False
            self.on_change()

    def warm_up_soon(self) -> None:
        if self._driver is None:
            self._driver = asyncio.get_running_loop().create_task(self._start_driver())

    async def warm_up(self) -> None:
        """Start Playwright's driver early: it takes about a second, which other start-up work can hide."""
        if self._driver is None:
            self._driver = asyncio.get_running_loop().create_task(self._start_driver())
        await asyncio.shield(self._driver)

    async def _start_driver(self) -> None:
        from playwright.async_api import async_playwright

        self._pw = await async_playwright().start()

    async def _launch(self) -> None:
        await self.warm_up()
        ext = self._prepare_extension()
        executable = find_browser(self.executable)
        self.paths.browser_profile.mkdir(parents=True, exist_ok=True, mode=0o700)
        no_saving_preferences(self.paths.browser_profile)
        log.info(
            "launching the managed browser (%s, %s)",
            executable or "Playwright's Chromium",
            "headless" if self.headless else "windowed",
        )
        context = await self._pw.chromium.launch_persistent_context(
            str(self.paths.browser_profile),
            executable_path=executable,
            headless=self.headless,
            no_viewport=True,
            args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}", *QUIET_ARGS, *FEATURE_ARGS],
            ignore_default_args=["--enable-automation", "--disable-extensions"],
        )
        # Playwright answers a page's dialogs itself (dismisses them) unless someone listens: a listener that
        # does nothing leaves every alert, confirm, prompt and beforeunload to the extension, which decides
        # in the managed browser as in the person's own (the agent, an armed answer or the dialog policy).
        context.on("dialog", _leave_to_the_extension)
        self._context = context
        context.on("close", lambda *_: self._closed(context))

    def _closed(self, context: Any) -> None:
        if context is not self._context:
            return
        self._context = None
        self.on_change()
        if self._stopping:
            return
        if not self.relaunch:
            log.info("the managed browser was closed")
            return
        log.warning("the managed browser went away; relaunching it")
        self._relaunch = asyncio.get_running_loop().create_task(self._relaunch_later())

    async def _relaunch_later(self) -> None:
        delay = RELAUNCH_DELAYS_S[min(self._failures, len(RELAUNCH_DELAYS_S) - 1)]
        self._failures += 1
        await asyncio.sleep(delay)
        if self._stopping:
            return
        try:
            await self.start()
            self._failures = 0
        except Exception:
            log.exception("relaunching the managed browser failed")
            if not self._stopping and self._context is None:
                self._relaunch = asyncio.get_running_loop().create_task(self._relaunch_later())

    async def stop(self) -> None:
        self._stopping = True
        if self._relaunch is not None:
            self._relaunch.cancel()
        context, self._context = self._context, None
        if context is not None:
            try:
                await context.close()
            except Exception:
                log.debug("closing the managed browser failed", exc_info=True)
        if self._driver is not None and not self._driver.done():
            self._driver.cancel()
        if self._pw is not None:
            try:
                await self._pw.stop()
            except Exception:
                log.debug("stopping Playwright failed", exc_info=True)
            self._pw = None
        self._driver = None
        self.on_change()


BUILD_FILE = "tabpilot-extension-build"
"""In the managed profile: the build of the extension it last ran (see forget_old_workers)."""


def forget_old_workers(profile: Path, build: str) -> None:
    """Chromium keeps service workers' scripts in the profile and runs them again at the next launch, even
    when --load-extension points at new files and the manifest's version changed: an updated Tabpilot
    would drive its browser with the old extension. When the build differs from the last launch's, the
    profile's service workers are dropped (the extension's and any site's, which register again when
    visited); logins, storage and history stay."""
    stamp = profile / BUILD_FILE
    try:
        last = stamp.read_text(encoding="utf-8").strip()
    except OSError:
        last = None
    if last == build:
        return
    for workers in profile.glob("*/Service Worker"):
        shutil.rmtree(workers, ignore_errors=True)
    profile.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp.write_text(build, encoding="utf-8")
    if last is not None:
        log.info("the extension changed (build %s, was %s): its old service worker is forgotten", build, last)


def stamp_build(extension: Path) -> str:
    """Give the copied extension a version of its own code, `<version>.<n>` with n from a hash of its files
    (Chromium then shows which build runs, and forget_old_workers knows when it changed); returned."""
    digest = hashlib.sha256()
    for file in sorted(f for f in extension.rglob("*") if f.is_file()):
        if file.name == "manifest.json" and file.parent == extension:
            continue
        digest.update(file.relative_to(extension).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    manifest_file = extension / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    digest.update(json.dumps({k: v for k, v in manifest.items() if k != "version"}, sort_keys=True).encode())
    base = ".".join(str(manifest.get("version", "0")).split(".")[:3])
    build = 1 + int(digest.hexdigest()[:8], 16) % 65535  # a version part is 0-65535
    manifest.setdefault("version_name", base)
    manifest["version"] = f"{base}.{build}"
    manifest_file.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return str(manifest["version"])
