"""Hosting for strangers: the server speaks TLS (wss://) when given a certificate, and clients
trust the system's authorities or, with --cafile, the certificate its host gave them."""
import datetime
import ipaddress
import json
import re
import subprocess
import sys

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from server.app import server_tls

from .live import ROOT, LiveServer, bot_seat, first_line, governor, outcome


def self_signed(folder, name="localhost", address="127.0.0.1"):
    """A self-signed certificate for `address` and localhost, as a host without a certificate
    authority would make one: cert.pem and key.pem in folder."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address(address))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory, certificate):
    s = LiveServer(tmp_path_factory.mktemp("server"), tls=server_tls(*map(str, certificate)))
    s.start()
    yield s
    s.close()


def test_a_match_over_wss_verifies_and_can_be_watched(tls_server, certificate, tmp_path):
    cafile = str(certificate[0])
    assert tls_server.url.startswith("wss://")
    ana = bot_seat(tls_server.url, tmp_path / "a", "--cafile", cafile, "--create", "sanjuan",
                   "--seats", "2", "--think", "0.01")
    table = first_line(ana)
    watcher = governor("watch", tls_server.url, table, "--cafile", cafile, "--data-dir", str(tmp_path / "w"))
    bo = bot_seat(tls_server.url, tmp_path / "b", "--cafile", cafile, "--table", table)
    results = [outcome(ana), outcome(bo)]
    assert all(r["verified"] and r["finished"] for r in results), results
    assert results[0]["scores"] == results[1]["scores"]
    out, err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, err
    assert "The match is over." in out and "VERIFIED" in out


def test_an_untrusted_certificate_is_refused_with_the_way_out(tls_server, tmp_path):
    proc = bot_seat(tls_server.url, tmp_path, "--create", "sanjuan", "--seats", "2")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "TLS certificate of wss://127.0.0.1" in err and "not trusted" in err and "--cafile" in err
    assert "Traceback" not in err and json.loads(out)["verified"] is False


def test_a_cafile_that_cannot_be_read_is_named(tls_server, tmp_path):
    (tmp_path / "junk.pem").write_text("not a certificate")
    for cafile in (str(tmp_path / "missing.pem"), str(tmp_path / "junk.pem")):
        proc = bot_seat(tls_server.url, tmp_path / "d", "--cafile", cafile, "--create", "sanjuan")
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 1 and f"cannot use --cafile {cafile}" in err and "Traceback" not in err, err


def test_a_cafile_bundle_with_comments_is_trusted(tls_server, certificate, tmp_path):
    """Bundles often carry comment lines between certificates, some not in ASCII."""
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes("# Issuer: CN=Türkiye Güven\n".encode() + certificate[0].read_bytes())
    proc = bot_seat(tls_server.url, tmp_path / "e", "--cafile", str(bundle), "--create", "sanjuan",
                    "--seats", "2", "--bots", "1")
    assert outcome(proc)["verified"]


def test_a_certificate_for_another_server_is_refused(tls_server, tmp_path):
    other, _ = self_signed(tmp_path, "someone-else")
    proc = bot_seat(tls_server.url, tmp_path / "c", "--cafile", str(other), "--create", "sanjuan")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "not trusted" in err and str(other) in err, err


def test_the_wrong_scheme_either_way_is_named(tls_server, tmp_path):
    plain = LiveServer(tmp_path / "plain")
    plain.start()
    try:
        proc = bot_seat(plain.url.replace("ws://", "wss://"), tmp_path / "p", "--patience", "1")
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 1 and "server at wss://" in err, err
        assert "if the server does not use TLS, its address starts with ws://" in err, err
        proc = bot_seat(plain.url, tmp_path / "q", "--cafile", "cert.pem")
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 1 and "--cafile is for wss:// servers" in err, err
    finally:
        plain.close()
    proc = bot_seat(tls_server.url.replace("wss://", "ws://"), tmp_path / "r", "--patience", "1")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "if the server uses TLS, its address starts with wss://" in err, err
    assert "Traceback" not in err


def test_governor_serve_with_a_certificate(certificate, tmp_path):
    cert, key = map(str, certificate)
    proc = subprocess.Popen([sys.executable, "-m", "client", "serve", "--port", "0", "--cert", cert,
                             "--key", key, "--data-dir", str(tmp_path / "data")], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        url = re.search(r"listening on (wss://\S+)", "".join(lines))
        assert url, lines
        port = url.group(1).rsplit(":", 1)[1]
        lobby = governor("join", f"wss://127.0.0.1:{port}", "--cafile", cert, "--bot", "random", "--no-input",
                         "--json", "--create", "sanjuan", "--seats", "2", "--bots", "1", "--pace", "0",
                         "--data-dir", str(tmp_path / "client"))
        assert outcome(lobby)["verified"]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


@pytest.mark.parametrize("args, says", [
    (["--cert", "/nonexistent.pem"], "cannot use the certificate '/nonexistent.pem'"),
    (["--key", "key.pem"], "--key goes with --cert"),
])
def test_governor_serve_refuses_a_bad_certificate(args, says, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "client", "serve", "--port", "0", *args,
                           "--data-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_key_that_does_not_match_the_certificate(certificate, tmp_path):
    _, other_key = self_signed(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "client", "serve", "--port", "0", "--cert", str(certificate[0]),
                           "--key", str(other_key), "--data-dir", str(tmp_path / "d")], cwd=ROOT,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "cannot use the certificate" in proc.stderr, proc.stderr
