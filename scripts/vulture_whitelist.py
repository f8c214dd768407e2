"""Names vulture (scripts/test: `vulture desktop scripts/vulture_whitelist.py --min-confidence 60`) reports
as unused that are not dead. Only desktop/ is scanned, so a use that only a framework or a test makes is
invisible to it. Each entry says who uses the name; anything not listed here that vulture finds is to be
removed, not listed.

Why 60: vulture rates every unused function, class, method, attribute and variable at 60 % (unused
imports 90 %, unused arguments and unreachable code 100 %), so any higher threshold would skip most of
what dead code is. The false positives that costs are the entries below.
"""

# ruff: noqa: B018
_ = object()

# -- Qt calls these overrides (virtual methods and properties of Qt classes) ---------------------------------
_.headerData  # QAbstractItemModel (ui/activity_window.py, ui/workflows_menu.py)
_.filterAcceptsRow  # QSortFilterProxyModel (ui/activity_window.py)
source_parent  # the parameter of filterAcceptsRow that Qt passes (its signature, unused by our filter)
_.textVisible  # QStyleOptionProgressBar, read by the style that paints the progress bar
_.eventFilter  # QObject.installEventFilter (ui/dialogs.py)
_.textFromValue  # QDoubleSpinBox (ui/settings_dialog.py)

# -- other libraries call these ------------------------------------------------------------------------------
_._open  # logging.FileHandler opens its stream through it (logsetup.PrivateRotatingFileHandler)
_.on_any_event  # watchdog's FileSystemEventHandler (storage/workflow_store.py)
# _json.make_scanner reads these of quickjson._Decoding, as it reads them of a json.JSONDecoder
_.strict, _.object_hook, _.object_pairs_hook, _.parse_float, _.parse_int, _.parse_constant

# -- fields of wire messages, read and written as JSON by the extension (bridge/protocol.py TypedDicts) ------
user_agent  # BrowserInfo
protocol  # Hello
extension_version  # Hello

# -- test seams: what the tests and benches read of a window or a store -----------------------------------------
_.is_current  # ExtensionLink: tests/unit/bridge/test_link.py
normalize_code  # bridge/pairing.py, as the extension normalizes a typed code: tests/gui, tests/integration
MemoryPairingVault  # an in-memory PairingVault (as policy.MemoryRules): tests/unit/bridge
pid_alive  # storage/statefile.py: tests/unit/storage/test_statefile.py, tests/e2e/test_headless_first_run.py
_.shown_model  # ActivityWindow: tests/gui/test_activity_window.py
_.picture_state  # ApprovalDialog: tests/gui/test_approval_dialog.py, bench/bench_approval.py
_.picture_shown_at  # ApprovalDialog: bench/bench_approval.py (how long the picture took)
_.shown_names  # SecretsWindow: tests/gui/test_secrets_settings.py
_.broken_menu  # WorkflowsMenu: tests/gui/test_workflows_menu.py, tests/gui/ui_screens_app.py

# -- dead, but in files another change is rewriting on main now (issue 9's engine work): remove after it lands ---
DOM_LIMITS  # engine/page/observe.py
_.mutating_steps  # engine/workflows/workflows.py (only tests/unit/engine/test_workflows.py calls it)
