"""A local fixture web site: static pages from tests/fixtures/site plus a few dynamic routes.

It records every request it serves, so a test can assert that something did (or did not) reach it.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import secrets
from pathlib import Path

from aiohttp import WSMsgType, web

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
INJECTION = SITE.parent / "injection"
STRICT_CSP = "default-src 'self'; script-src 'self'; object-src 'none'"
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


class FixtureSite:
    def __init__(self) -> None:
        self.requests: list[str] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self.state_sessions: dict[str, str] = {}
        """/state/login's HttpOnly cookie values → the user each signs in."""
        self.state_values: list[str] = []
        """Every secret value /state/login handed out (cookie, storages): for a test to search files for."""
        self.catalog_broken = False
        """A server switch: /api/catalog finds no books (a generated test of a search must then fail)."""

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._record])
        app.router.add_get("/", self._root)
        app.router.add_get("/pixel.png", self._pixel)
        app.router.add_get("/api/data", self._data)
        app.router.add_get("/slow", self._slow)
        app.router.add_get("/submitted", self._submitted)
        app.router.add_get("/table", self._table)
        app.router.add_get("/bigtable", self._bigtable)
        app.router.add_get("/protected", self._protected)
        app.router.add_get("/account", self._account)
        app.router.add_get("/login", self._login_form)
        app.router.add_post("/session", self._session)
        app.router.add_get("/state/login", self._state_login)
        app.router.add_get("/state/home", self._state_home)
        app.router.add_post("/upload", self._upload)
        app.router.add_get("/download-login", self._download_login)
        app.router.add_get("/files/report.txt", self._report)
        app.router.add_get("/api/json", self._api_json)
        app.router.add_get("/api/text", self._api_text)
        app.router.add_get("/api/binary", self._api_binary)
        app.router.add_get("/api/fail", self._api_fail)
        app.router.add_get("/api/big", self._api_big)
        app.router.add_get("/api/stream-binary", self._api_stream_binary)
        app.router.add_post("/api/echo-body", self._api_echo_body)
        app.router.add_post("/api/echo-back", self._api_echo_back)
        app.router.add_get("/api/echo-headers", self._api_echo_headers)
        app.router.add_get("/api/items", self._api_items)
        app.router.add_get("/ws/echo", self._ws_echo)
        app.router.add_get("/ws/sink", self._ws_sink)
        app.router.add_get("/injection/{label}/{name}.html", self._injection_page)
        app.router.add_get("/catalog", self._catalog)
        app.router.add_get("/catalog/login", self._catalog_login)
        app.router.add_get("/catalog/search", self._catalog_search)
        app.router.add_get("/catalog/item/{book}", self._catalog_item)
        app.router.add_get("/api/catalog", self._api_catalog)
        app.router.add_get("/{name}.css", self._stylesheet)
        app.router.add_get("/{name}.html", self._page)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @web.middleware
    async def _record(self, request: web.Request, handler):  # type: ignore[no-untyped-def]
        self.requests.append(f"{request.method} {request.path_qs}")
        return await handler(request)

    async def _page(self, request: web.Request) -> web.StreamResponse:
        path = SITE / f"{request.match_info['name']}.html"
        if not path.is_file():
            raise web.HTTPNotFound()
        body = path.read_text(encoding="utf-8").replace("LONGTEXT", "x" * 800)
        strict = path.stem == "csp" or path.stem.startswith("csp-")
        headers = {"Content-Security-Policy": STRICT_CSP} if strict else {}
        return web.Response(text=body, content_type="text/html", headers=headers)

    async def _injection_page(self, request: web.Request) -> web.StreamResponse:
        """The labelled prompt-injection pages (tests/fixtures/injection/{benign,injected}/)."""
        label, name = request.match_info["label"], request.match_info["name"]
        path = INJECTION / label / f"{name}.html"
        if label not in ("benign", "injected") or not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(text=path.read_text(encoding="utf-8"), content_type="text/html")

    async def _root(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/index.html")

    async def _pixel(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=PIXEL, content_type="image/png")

    async def _data(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"items": [1, 2, 3], "ok": True})

    async def _slow(self, request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(float(request.query.get("s", "1")))
        return web.Response(text="<title>Slow</title><h1>Slow page</h1>", content_type="text/html")

    async def _submitted(self, request: web.Request) -> web.StreamResponse:
        """Echoes a submitted GET form: one <dd data-name=NAME> per field."""
        rows = "".join(
            f'<dt>{html.escape(k)}</dt><dd data-name="{html.escape(k)}">{html.escape(v)}</dd>'
            for k, v in request.query.items()
        )
        body = f'<!doctype html><title>Submitted</title><h1>Submitted</h1><dl id="values">{rows}</dl>'
        return web.Response(text=body, content_type="text/html")

    async def _table(self, request: web.Request) -> web.StreamResponse:
        """Three server-rendered pages of five rows; pages 1 and 2 link the next with a.next-page."""
        page = int(request.query.get("page", "1"))
        rows = "".join(
            f'<tr class="row"><td class="n">{n}</td><td class="label">Row {n} of page {page}</td></tr>'
            for n in range((page - 1) * 5 + 1, page * 5 + 1)
        )
        nav = f'<a class="next-page" href="/table?page={page + 1}">Next</a>' if page < 3 else ""
        body = (
            f"<!doctype html><title>Table page {page}</title><h1>Page {page}</h1>"
            f'<table id="rows"><tbody>{rows}</tbody></table><nav>{nav}</nav>'
        )
        return web.Response(text=body, content_type="text/html")

    # -- a small site behind a login ------------------------------------------------------------------

    USERS = {"alice": "correct horse battery staple"}

    def _signed_in(self, request: web.Request) -> str | None:
        user = request.cookies.get("session", "")
        return user if user in self.USERS else None

    async def _protected(self, request: web.Request) -> web.StreamResponse:
        if self._signed_in(request) is None:
            raise web.HTTPFound(f"/login?next={request.path}")
        return web.Response(text="<title>Protected</title><h1>Members only</h1>", content_type="text/html")

    async def _login_form(self, request: web.Request) -> web.StreamResponse:
        nxt = html.escape(request.query.get("next", "/account"))
        body = (
            "<!doctype html><title>Sign in</title><h1>Sign in</h1>"
            f'<form id="login" method="post" action="/session"><input type="hidden" name="next" value="{nxt}">'
            '<input id="user" name="user"><input id="password" name="password" type="password">'
            '<button id="go" type="submit">Sign in</button></form>'
        )
        return web.Response(text=body, content_type="text/html")

    async def _session(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        user, password = str(form.get("user", "")), str(form.get("password", ""))
        if self.USERS.get(user) != password:
            return web.Response(
                text="<title>Wrong</title><h1>Wrong password</h1>", content_type="text/html", status=403
            )
        response = web.HTTPFound(str(form.get("next") or "/account"))
        response.set_cookie("session", user, httponly=True)
        raise response

    async def _account(self, request: web.Request) -> web.StreamResponse:
        user = self._signed_in(request)
        if user is None:
            raise web.HTTPFound("/login?next=/account")
        orders = "".join(
            f'<tr class="order"><td class="id">A-{n}</td><td class="total">${n * 10:,}.50</td></tr>' for n in (101, 102)
        )
        body = (
            f'<!doctype html><title>Account</title><h1 id="hello">Welcome, {html.escape(user)}</h1>'
            f'<table id="orders"><tbody>{orders}</tbody></table>'
        )
        return web.Response(text=body, content_type="text/html")

    # -- a small catalog behind a login: sign in, search (results come from an API a moment later), open one --

    BOOKS = {
        "hobbit": ("The Hobbit", "J. R. R. Tolkien"),
        "dune": ("Dune", "Frank Herbert"),
        "emma": ("Emma", "Jane Austen"),
        "hamlet": ("Hamlet", "William Shakespeare"),
    }

    async def _catalog_login(self, request: web.Request) -> web.StreamResponse:
        body = (
            "<!doctype html><title>Catalog: sign in</title><h1>Sign in to the catalog</h1>"
            '<form method="post" action="/session"><input type="hidden" name="next" value="/catalog">'
            '<p><label for="user">Username</label> <input id="user" name="user" autocomplete="off"></p>'
            '<p><label for="password">Password</label> <input id="password" name="password" type="password"></p>'
            '<button type="submit">Sign in</button></form>'
        )
        return web.Response(text=body, content_type="text/html")

    async def _catalog(self, request: web.Request) -> web.StreamResponse:
        user = self._signed_in(request)
        if user is None:
            raise web.HTTPFound("/catalog/login")
        body = (
            f"<!doctype html><title>Catalog</title><h1>Catalog</h1><p id=who>Signed in as {html.escape(user)}</p>"
            '<form role="search" action="/catalog/search"><label for="q">Search books</label> '
            '<input id="q" name="q" type="search"> <button type="submit">Search</button></form>'
        )
        return web.Response(text=body, content_type="text/html")

    async def _catalog_search(self, request: web.Request) -> web.StreamResponse:
        """The results arrive from /api/catalog after a moment: a test has to wait for them."""
        if self._signed_in(request) is None:
            raise web.HTTPFound("/catalog/login")
        body = (
            "<!doctype html><title>Search results</title><h1>Results</h1><p id=status>Searching…</p>"
            '<ul id="results"></ul><script>'
            "const q = new URLSearchParams(location.search).get('q') || '';"
            "setTimeout(async () => {"
            "  const books = await (await fetch('/api/catalog?q=' + encodeURIComponent(q))).json();"
            "  const list = document.getElementById('results');"
            "  for (const b of books) {"
            "    const li = document.createElement('li'); const a = document.createElement('a');"
            "    a.href = '/catalog/item/' + b.id; a.textContent = b.title; li.append(a, ' by ' + b.author);"
            "    list.append(li);"
            "  }"
            "  document.getElementById('status').textContent = books.length + ' found';"
            "}, 300);</script>"
        )
        return web.Response(text=body, content_type="text/html")

    async def _api_catalog(self, request: web.Request) -> web.StreamResponse:
        q = request.query.get("q", "").strip().lower()
        found = [
            {"id": key, "title": title, "author": author}
            for key, (title, author) in self.BOOKS.items()
            if q and q in title.lower() and not self.catalog_broken
        ]
        return web.json_response(found)

    async def _catalog_item(self, request: web.Request) -> web.StreamResponse:
        book = self.BOOKS.get(request.match_info["book"])
        if self._signed_in(request) is None or book is None:
            raise web.HTTPNotFound()
        title, author = (html.escape(part) for part in book)
        body = f'<!doctype html><title>{title}</title><h1>{title}</h1><p class="author">{author}</p>'
        return web.Response(text=body, content_type="text/html")

    # -- a login that needs an HttpOnly cookie, localStorage and sessionStorage all at once --------------

    async def _state_login(self, request: web.Request) -> web.StreamResponse:
        """Signs `user` in three ways: an HttpOnly cookie only the server reads, and a localStorage and a
        sessionStorage item only the page's script reads. Each value is new and random."""
        user = request.query.get("user", "alice")
        sid = "sid-" + secrets.token_hex(16)
        self.state_sessions[sid] = user
        local, session = "ls-" + secrets.token_hex(16), "ss-" + secrets.token_hex(16)
        self.state_values += [sid, local, session]
        body = (
            "<!doctype html><title>Signing in</title><p id=status>signing in</p><script>"
            f"localStorage.setItem('profile', {json.dumps(local)});"
            f"sessionStorage.setItem('tab_token', {json.dumps(session)});"
            "document.getElementById('status').textContent = 'signed in';</script>"
        )
        response = web.Response(text=body, content_type="text/html")
        response.set_cookie("sid", sid, httponly=True, path="/")
        return response

    async def _state_home(self, request: web.Request) -> web.StreamResponse:
        """`logged in as X` only when all three are there (the cookie reaches the server; the page's own
        script finds both storage items); else says which are missing."""
        user = self.state_sessions.get(request.cookies.get("sid", ""), "")
        body = (
            f"<!doctype html><title>Home</title><p id=status data-user={json.dumps(html.escape(user))}></p>"
            "<script>const el = document.getElementById('status'); const missing = [];"
            "if (!el.dataset.user) missing.push('cookie');"
            "if (!localStorage.getItem('profile')) missing.push('localStorage');"
            "if (!sessionStorage.getItem('tab_token')) missing.push('sessionStorage');"
            "el.textContent = missing.length ? 'not logged in: no ' + missing.join(', ') "
            ": 'logged in as ' + el.dataset.user;</script>"
        )
        return web.Response(text=body, content_type="text/html")

    async def _bigtable(self, request: web.Request) -> web.StreamResponse:
        """`rows` rows (default 500) of five cells, for extraction timing."""
        count = int(request.query.get("rows", "500"))
        rows = "".join(
            f'<tr class="r"><td class="id">{i}</td><td class="name">Person {i}</td>'
            f'<td class="email"><a href="mailto:p{i}@example.com">p{i}@example.com</a></td>'
            f'<td class="points">{i * 1237:,}</td><td class="status">{"active" if i % 3 else "away"}</td></tr>'
            for i in range(1, count + 1)
        )
        body = f'<!doctype html><title>Big table</title><table id="big"><tbody>{rows}</tbody></table>'
        return web.Response(text=body, content_type="text/html")

    # -- files: an upload the server receives, a download only a cookie holder gets ---------------------

    REPORT = b"quarterly report: for cookie holders only\n"

    async def _upload(self, request: web.Request) -> web.StreamResponse:
        """A multipart form's files, each as `<li data-field data-name data-size data-sha>` (what arrived)."""
        rows = []
        async for part in await request.multipart():
            if part.filename is None:  # type: ignore[union-attr]
                continue
            data = await part.read()  # type: ignore[union-attr]
            field = html.escape(part.name or "")  # type: ignore[union-attr]
            name = html.escape(part.filename or "")  # type: ignore[union-attr]
            digest = hashlib.sha256(data).hexdigest()[:16]
            if name or data:
                rows.append(
                    f'<li data-field="{field}" data-name="{name}" data-size="{len(data)}" data-sha="{digest}">'
                    f"{field}: {name} ({len(data)} bytes)</li>"
                )
        body = f'<!doctype html><title>Uploaded</title><h1>Uploaded</h1><ul id="received">{"".join(rows)}</ul>'
        return web.Response(text=body, content_type="text/html")

    async def _download_login(self, request: web.Request) -> web.StreamResponse:
        response = web.Response(text="<title>Download login</title><h1>Signed in</h1>", content_type="text/html")
        response.set_cookie("dl", "let-me-in", httponly=True)
        return response

    async def _report(self, request: web.Request) -> web.StreamResponse:
        if request.cookies.get("dl") != "let-me-in":
            return web.Response(status=403, text="no cookie, no report")
        return web.Response(
            body=self.REPORT,
            content_type="text/plain",
            headers={"Content-Disposition": 'attachment; filename="q3 report.txt"'},
        )

    # -- capture: API answers of every kind, header echo, WebSockets ----------------------------------

    async def _stylesheet(self, request: web.Request) -> web.StreamResponse:
        path = SITE / f"{request.match_info['name']}.css"
        if not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(text=path.read_text(encoding="utf-8"), content_type="text/css")

    async def _api_json(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"user": "alice", "items": [1, 2, 3], "tag": request.query.get("tag", "")})

    async def _api_text(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="plain text answer", content_type="text/plain")

    async def _api_binary(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=bytes(range(256)) * 8, content_type="application/octet-stream")

    async def _api_fail(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": "server exploded"}, status=500)

    async def _api_big(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="b" * 20_000, content_type="text/plain")

    async def _api_stream_binary(self, request: web.Request) -> web.StreamResponse:
        """1 MiB of binary, chunked: no Content-Length, so its size is known only by reading it all."""
        response = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        for _ in range(16):
            await response.write(bytes(64 * 1024))
        await response.write_eof()
        return response

    async def _api_echo_body(self, request: web.Request) -> web.StreamResponse:
        body = await request.text()
        return web.json_response({"received_chars": len(body)})

    async def _api_echo_back(self, request: web.Request) -> web.StreamResponse:
        """The body as it came, with its content type: a response that carries what the request carried."""
        return web.Response(body=await request.read(), content_type=request.content_type)

    async def _api_items(self, request: web.Request) -> web.StreamResponse:
        """The real backend of mockapp.html (a test's mocked route answers instead of it)."""
        return web.json_response({"items": ["real apple", "real pear"]})

    async def _api_echo_headers(self, request: web.Request) -> web.StreamResponse:
        """Which headers arrived, each with a digest of its value (never the value itself), so a page can
        prove its request carried them while no value ever shows up in a response body."""
        digests = {k.lower(): hashlib.sha256(v.encode()).hexdigest()[:16] for k, v in request.headers.items()}
        return web.json_response({"headers": digests})

    async def _ws_echo(self, request: web.Request) -> web.StreamResponse:
        """Echoes every frame. `burst N SIZE` answers N text frames of SIZE characters instead."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        async for msg in ws:
            if msg.type == WSMsgType.TEXT and msg.data.startswith("burst "):
                _, count, size = msg.data.split()
                for n in range(int(count)):
                    await ws.send_str(f"{n}:".ljust(int(size), "x"))
            elif msg.type == WSMsgType.TEXT:
                await ws.send_str(msg.data)
            elif msg.type == WSMsgType.BINARY:
                await ws.send_bytes(msg.data)
        return ws

    async def _ws_sink(self, request: web.Request) -> web.StreamResponse:
        """Takes frames and answers none (a page sending as fast as it can)."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        async for _msg in ws:
            pass
        return ws
