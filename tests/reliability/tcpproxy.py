"""A TCP forwarder the test can cut: the network between pbmserv and PostgreSQL going away.

Real bytes to the real database; ``down()`` closes every open connection and
refuses new ones (connection refused), ``up()`` listens again on the same port.
``hang()`` is the quieter failure: a firewall or NAT that lost its state.
Every open connection, and every one made while it hangs, stays open but
its bytes go nowhere, for good (no reset, no close: the client waits);
``unhang()`` forwards connections made after it again.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class TCPProxy:
    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._hanging = False
        #: Sockets whose bytes are dropped (a blackholed connection never comes back).
        self._dead: set[socket.socket] = set()

    def up(self) -> TCPProxy:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        self._listener = sock
        threading.Thread(target=self._accept, args=(sock,), daemon=True).start()
        return self

    def down(self) -> None:
        with self._lock:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            for conn in self._conns:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            self._conns.clear()

    def hang(self) -> None:
        with self._lock:
            self._hanging = True
            self._dead.update(self._conns)

    def unhang(self) -> None:
        with self._lock:
            self._hanging = False

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                client, _ = sock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not sock:  # went down while this one was connecting
                    client.close()
                    server.close()
                    return
                self._conns += [client, server]
                if self._hanging:
                    self._dead.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if src not in self._dead:
                    dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
