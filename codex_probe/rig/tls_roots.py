"""The root certificates codex is given: one, whose key was never kept.

codex builds an HTTP client (reqwest on rustls) for every model request, and each build
reads and parses the machine's whole root store (here /etc/ssl/certs/ca-certificates.crt,
144 certificates): about 17 ms of codex's CPU a turn, 24 to 32 ms of 0.120.0's turn and
46 to 57 ms of 0.171.0's (30 turns on one app-server, a few runs each; docs/benchmarks.md).
So each home hands codex `SSL_CERT_FILE`, naming a file in the home with the one
certificate below: rustls-native-certs reads that file in place of the machine's store,
and codex's own CA code, in the releases that have it (`CODEX_CA_CERTIFICATE`, else
`SSL_CERT_FILE`), adds that one certificate to the roots.

What it changes for codex is whom its TLS trusts: nobody. The certificate is self-signed
and its key went to /dev/null as it was made:

    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \\
        -keyout /dev/null -days 36500 -subj "/CN=codex-probe root whose key was never kept"

Nothing a home lets codex reach is TLS: the wiretap is plain HTTP on 127.0.0.1, codex's
own outbound calls are switched off by its config (rig/homes.py) or, in the exploration,
refused by its proxy before any handshake. A call that got past both would have reached a
real server with the machine's roots; now its handshake fails. The commands codex runs
inherit the variable as they inherit its PATH. A reproduction bundle's replay, which
engineers run to show upstream what codex does, gives codex the machine's roots.
"""

from __future__ import annotations

from pathlib import Path

ENV_NAME = "SSL_CERT_FILE"
FILE_NAME = "tls-roots.pem"
NO_ONES_ROOT = """\
-----BEGIN CERTIFICATE-----
MIIBvzCCAWWgAwIBAgIULw02S0SinxHrHAZUXBzgOQayuYMwCgYIKoZIzj0EAwIw
NDEyMDAGA1UEAwwpY29kZXgtcHJvYmUgcm9vdCB3aG9zZSBrZXkgd2FzIG5ldmVy
IGtlcHQwIBcNMjYxMjA3MDMxODU3WhgPMjEyNjExMTMwMzE4NTdaMDQxMjAwBgNV
BAMMKWNvZGV4LXByb2JlIHJvb3Qgd2hvc2Uga2V5IHdhcyBuZXZlciBrZXB0MFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE89I4QmvYkesidM726F7wSRWY3QyIiMx9
bHpxSPgRGQEcRKw85fWGaECtKKsTSflpE/llaWSCahtbyXDwHpRk7qNTMFEwHQYD
VR0OBBYEFCM9OZpnrl9jm7mo2LY6Y0ORkMmBMB8GA1UdIwQYMBaAFCM9OZpnrl9j
m7mo2LY6Y0ORkMmBMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIg
WyA5gqck+13TUaM2B56uNiWpQOQu454eux+Ql/1IHOgCIQCdHF1qBwKUhMqXnQoq
AC4jfYjwxcxqckABEwQVXF+knQ==
-----END CERTIFICATE-----
"""


def write_roots(folder: Path) -> Path:
    """The roots file for a home, written in `folder`."""
    path = folder / FILE_NAME
    path.write_text(NO_ONES_ROOT, encoding="ascii")
    return path
