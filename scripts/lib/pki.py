# SPDX-License-Identifier: GPL-2.0-or-later
"""Throwaway TLS material and password hashes for tests, made with Debian's
openssl command and Python's crypt module (libcrypt's bcrypt)."""

import os
import subprocess
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # Debian 12's Python 3.11 still has it


def _openssl(*args):
    r = subprocess.run(["openssl", *args], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1/::1/localhost, a client
    certificate from that CA (CN=prometheus, O=Monitoring, SAN
    prometheus.example), one from a rogue CA, and a renewed server
    certificate (other.pem). Returns path(name)."""
    os.makedirs(d, exist_ok=True)

    def path(n):
        return os.path.join(d, n)

    def ca(name):
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-nodes", "-days", "2", "-subj", f"/CN={name}", "-keyout", path(f"{name}.key"),
                 "-out", path(f"{name}.pem"))

    def leaf(name, issuer, subj, san, usage):
        ext = path(f"{name}.ext")
        with open(ext, "w") as f:
            f.write(f"subjectAltName={san}\nextendedKeyUsage={usage}\n")
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                 "-subj", subj, "-keyout", path(f"{name}.key"), "-out", path(f"{name}.csr"))
        _openssl("x509", "-req", "-in", path(f"{name}.csr"), "-CA", path(f"{issuer}.pem"),
                 "-CAkey", path(f"{issuer}.key"), "-CAcreateserial", "-days", "2",
                 "-extfile", ext, "-out", path(f"{name}.pem"))

    ca("ca")
    ca("rogue")
    leaf("server", "ca", "/CN=controller", "IP:127.0.0.1,IP:::1,DNS:localhost", "serverAuth")
    leaf("client", "ca", "/O=Monitoring/CN=prometheus", "DNS:prometheus.example", "clientAuth")
    leaf("intruder", "rogue", "/CN=intruder", "DNS:prometheus.example", "clientAuth")
    # A renewal of the server certificate (other.pem/other.key).
    leaf("other", "ca", "/CN=renewed", "IP:127.0.0.1,IP:::1,DNS:localhost", "serverAuth")
    return path


def bcrypt_hash(password, cost=10):
    """A $2b$ hash of `password`, as htpasswd -B makes (libcrypt)."""
    h = crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << cost))
    assert h.startswith(f"$2b${cost:02d}$"), h
    return h
