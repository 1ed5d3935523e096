"""Real mail servers on loopback for the tests: Debian's Postfix, OpenDKIM and OpenDMARC.

Two mail systems, each a Postfix instance with its own config directory, queue and ports, and
its own OpenDKIM (signing what its users submit, verifying the rest) and OpenDMARC:

- **kinplay's** (``kinplay.test``, authserv-id ``mx.kinplay.test``): kinplay submits its emails
  to it; it takes replies and delivery reports for ``play@`` and ``bounces@`` and pipes them into
  ``manage.py receive_mail``, as docs/email.md tells a deployment to;
- **the players'** (``players.test``, ``mx.players.test``): alice's and bob's mailboxes (mbox
  files), and the server their replies leave from.

DNS (SPF, DKIM keys, DMARC policies) comes from a dnslib server on port 53 of a loopback address
of this process's own; the milters run in a mount namespace whose /etc/resolv.conf names it, so
the host's resolver is never touched. The keys are made by ``opendkim-genkey``. Each server sends
from a loopback address of its own (``smtp_bind_address``), which is what the SPF records name.
Nothing listens on port 25: every port is a free one.
"""

from __future__ import annotations

import contextlib
import mailbox
import os
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import free_port, wait_for

PACKAGES = {"postfix": "/usr/sbin/postfix", "opendkim": "/usr/sbin/opendkim",
            "opendkim-tools": "/usr/sbin/opendkim-genkey", "opendmarc": "/usr/sbin/opendmarc"}
REPO = Path(__file__).resolve().parents[2]
NOBODY, NOGROUP = 65534, 65534  # the pipe's and the mailboxes' owner (Postfix's default_privs)


def missing() -> str | None:
    """Why these servers cannot run here, or None."""
    absent = [name for name, path in PACKAGES.items() if not Path(path).exists()]
    if absent:
        return f"the Debian packages {', '.join(absent)} are not installed (.ci/run installs them)"
    if os.geteuid() != 0:
        return "Postfix's instances, the milters' mount namespace and DNS on port 53 need root"
    if subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode:
        return "no mount namespaces here (unshare --mount), which the milters' DNS and the pipe need"
    return None


@dataclass
class Domain:
    name: str  # kinplay.test
    host: str  # mx.kinplay.test: the authserv-id of its milters
    source: str  # the loopback address its Postfix sends from (its SPF record)
    dir: Path
    port: int = field(default_factory=free_port)  # its Postfix's smtpd
    dkim_port: int = field(default_factory=free_port)
    dmarc_port: int = field(default_factory=free_port)
    selector: str = "k1"

    @property
    def etc(self) -> Path:
        return self.dir / "etc"


def zone(domains: list[Domain], keys: dict[str, str]) -> str:
    """The DNS records each domain publishes: SPF, the DKIM key, a DMARC policy (docs/email.md)."""
    lines = []
    for d in domains:
        lines += [
            f'{d.name}. 60 IN TXT "v=spf1 ip4:{d.source} -all"',
            f"{d.selector}._domainkey.{d.name}. 60 IN TXT {keys[d.name]}",
            f'_dmarc.{d.name}. 60 IN TXT "v=DMARC1; p=reject; adkim=r; aspf=r"',
        ]
    return "\n".join(lines) + "\n"


def dkim_record(txt_file: Path) -> str:
    """The TXT strings of opendkim-genkey's record ("v=DKIM1; ..." "p=..."), one line."""
    text = txt_file.read_text()
    return " ".join(part for part in text[text.index("(") + 1:text.index(")")].split() if part)


# The settings docs/email.md gives a deployment, word for word (test_mail_docs checks it): the
# tests' servers run with exactly these, plus their names, keys, files and ports.
OPENDKIM = """\
Mode                    sv
Canonicalization        relaxed/relaxed
OversignHeaders         From
SignHeaders             From,Reply-To,Subject,Date,To,Cc,Message-ID,MIME-Version,Content-Type,Auto-Submitted,List-Unsubscribe,List-Unsubscribe-Post
InternalHosts           127.0.0.1
"""
OPENDMARC = """\
SPFSelfValidate         true
SPFIgnoreResults        true
RejectFailures          false
FailureReports          false
RequiredHeaders         false
"""
POSTFIX = """\
recipient_delimiter = +
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
non_smtpd_milters = $smtpd_milters
milter_default_action = tempfail
"""


def opendkim_conf(d: Domain, keys: Path) -> str:
    # RequireSafeKeys: the keys are under /tmp, writable by all. TestPublicKeys: Debian's OpenDKIM
    # resolves with libunbound, which does not read resolv.conf, so it reads the zone's keys from a file.
    return OPENDKIM + f"""\
Domain                  {d.name}
Selector                {d.selector}
KeyFile                 {d.etc}/{d.selector}.private
AuthservID              {d.host}
Socket                  inet:{d.dkim_port}@127.0.0.1
PidFile                 {d.dir}/opendkim.pid
UserID                  opendkim
Syslog                  no
RequireSafeKeys         false
TestPublicKeys          {keys}
"""


def opendmarc_conf(d: Domain) -> str:
    return OPENDMARC + f"""\
AuthservID              {d.host}
TrustedAuthservIDs      {d.host}
IgnoreHosts             {d.etc}/dmarc-ignore-hosts
Socket                  inet:{d.dmarc_port}@127.0.0.1
PidFile                 {d.dir}/opendmarc.pid
UserID                  opendmarc
Syslog                  false
"""


MASTER_CF = """\
{listen} inet n - n - - smtpd
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
proxywrite unix - - n - 1 proxymap
smtp      unix  - - n - - smtp
relay     unix  - - n - - smtp
showq     unix  n - n - - showq
error     unix  - - n - - error
retry     unix  - - n - - error
discard   unix  - - n - - discard
local     unix  - n n - - local
virtual   unix  - n n - - virtual
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
"""


def main_cf(d: Domain, *, relay_to: Domain, local: str) -> str:
    """What both instances share, then ``local``: how each delivers its own domain's mail."""
    return POSTFIX + f"""\
compatibility_level = 3.6
queue_directory = {d.dir}/spool
data_directory = {d.dir}/data
maillog_file = {d.dir}/maillog
maillog_file_prefixes = {d.dir}
mail_owner = postfix
setgid_group = postdrop
myhostname = {d.host}
mydomain = {d.name}
myorigin = $mydomain
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.1/32
smtpd_peername_lookup = no
smtp_bind_address = {d.source}
smtputf8_enable = no
biff = no
transport_maps = inline:{{ {relay_to.name}=smtp:[127.0.0.1]:{relay_to.port} }}
smtpd_recipient_restrictions = check_recipient_access texthash:{d.etc}/access
smtpd_milters = inet:127.0.0.1:{d.dkim_port}, inet:127.0.0.1:{d.dmarc_port}
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
delay_warning_time = 2s
{local}"""


def kinplay_local(d: Domain) -> str:
    """kinplay's domain: play+<token>@ and bounces+<token>@ go to receive_mail (an alias pipe)."""
    return f"""\
mydestination = {d.name}
alias_maps = texthash:{d.etc}/aliases
alias_database =
local_recipient_maps = $alias_maps
default_privs = nobody
"""


def players_local(d: Domain) -> str:
    """The players' domain: a mailbox file per player; any other name is an unknown mailbox."""
    return f"""\
mydestination =
virtual_mailbox_domains = {d.name}
virtual_mailbox_base = {d.dir}/mail
virtual_mailbox_maps = texthash:{d.etc}/mailboxes
virtual_uid_maps = static:{NOBODY}
virtual_gid_maps = static:{NOGROUP}
"""


def interpreter_binds(root: Path) -> list[str]:
    """Shell commands that, inside Postfix's own mount namespace, open the way to this Python, its
    virtualenv and the code for the pipe's user (nobody) where a directory on their paths is
    closed to others (a pyenv or a clone under /root): that directory is covered by one of ours
    that shows only the entries on those paths."""
    shown: dict[Path, set[str]] = {}
    for target in (Path(os.path.realpath(sys.executable)), Path(sys.prefix).resolve(), REPO):
        for closed in [p for p in target.parents if not os.stat(p).st_mode & 0o001]:
            shown.setdefault(closed, set()).add(target.relative_to(closed).parts[0])
    commands = []
    for closed, entries in sorted(shown.items()):
        view = root / "views" / str(closed).strip("/").replace("/", "_")
        for entry in sorted(entries):
            (view / entry).mkdir(parents=True, exist_ok=True)
            commands.append(f"mount --bind {closed / entry} {view / entry}")
        view.chmod(0o711)
        commands.append(f"mount --rbind {view} {closed}")
    return commands


def receive_mail_env(db: dict, settings) -> dict[str, str]:
    """What ``manage.py receive_mail`` run by Postfix needs to be the test's kinplay: its database
    (over TCP: the pipe runs as nobody), its key and its mail settings."""
    if db["ENGINE"].endswith("sqlite3"):
        url = f"sqlite:///{db['NAME']}"
    else:
        url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return {"DJANGO_SETTINGS_MODULE": "kinplay.settings_test", "DATABASE_URL": url,
            "SECRET_KEY": settings.SECRET_KEY, "KINPLAY_PURE_ENGINES": "1",
            "DEFAULT_FROM_EMAIL": FROM, "MAIL_REPLY_ADDRESS": "play@kinplay.test",
            "MAIL_BOUNCE_ADDRESS": "bounces@kinplay.test", "MAIL_AUTHSERV_ID": "mx.kinplay.test",
            "SITE_URL": SITE_URL}


FROM, SITE_URL = "kinplay <turns@kinplay.test>", "https://kinplay.test"


def _dns_ip() -> str:
    """A loopback address of this process's own, so two test processes never share port 53."""
    pid = os.getpid()
    return f"127.53.{(pid >> 8) & 255}.{pid & 255 or 1}"


class MailSystem:
    """Start with ``start()``, stop with ``stop()``; ``kinplay`` and ``players`` are the domains."""

    def __init__(self, root: Path, receive_mail_env: dict[str, str], mailboxes: list[str]):
        self.root = root
        self.env = receive_mail_env
        self.kinplay = Domain("kinplay.test", "mx.kinplay.test", "127.25.0.1", root / "kinplay")
        self.players = Domain("players.test", "mx.players.test", "127.25.0.2", root / "players")
        self.mailboxes = mailboxes
        self.dns_ip = _dns_ip()
        self.procs: list[subprocess.Popen] = []

    # ------------------------------------------------------------------ setup
    def start(self):
        domains = [self.kinplay, self.players]
        for d in domains:
            for sub in ("etc", "spool", "data"):
                (d.dir / sub).mkdir(parents=True, exist_ok=True)
            shutil.chown(d.dir / "data", "postfix")
            subprocess.run(["opendkim-genkey", "-b", "2048", "-d", d.name, "-s", d.selector, "-D", str(d.etc)], check=True)
            shutil.chown(d.etc / f"{d.selector}.private", "opendkim")
            (d.etc / "opendkim.conf").write_text(opendkim_conf(d, self.root / "dkim-keys"))
            (d.etc / "opendmarc.conf").write_text(opendmarc_conf(d))
            (d.etc / "dmarc-ignore-hosts").write_text("127.0.0.1\n")  # its own users' submissions
            (d.etc / "master.cf").write_text(MASTER_CF.format(listen=f"127.0.0.1:{d.port}"))
            self.set_access(d, {})
        keys = {d.name: dkim_record(d.etc / f"{d.selector}.txt") for d in domains}
        self.zone = zone(domains, keys)
        self._kinplay_files()
        self._players_files()
        self._start_dns()
        for d in domains:
            self._start_milters(d)
        # kinplay's Postfix runs in a mount namespace of its own where the pipe can run this Python.
        binds = " && ".join([*interpreter_binds(self.root), f"postfix -c {self.kinplay.etc} start"])
        started = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", binds],
                                 capture_output=True, text=True)
        if started.returncode:
            raise RuntimeError(f"starting kinplay's Postfix: {started.stderr}{self.log(self.kinplay)}")
        self._postfix(self.players, "start")
        for d in domains:
            for port in (d.port, d.dkim_port, d.dmarc_port):
                wait_for(lambda port=port: _listening(port), f"port {port} of {d.name}'s mail system",
                         on_fail=lambda d=d: self.log(d))

    def _kinplay_files(self):
        d = self.kinplay
        (d.etc / "main.cf").write_text(main_cf(d, relay_to=self.players, local=kinplay_local(d)))
        script = d.dir / "receive_mail"
        exports = " ".join(f"{k}='{v}'" for k, v in sorted({**self.env, "KINPLAY_VAR": str(d.dir / "var")}.items()))
        # Postfix runs an alias's command as default_privs (nobody) with a bare environment:
        # the script gives manage.py the settings the test's own process has.
        script.write_text(f"#!/bin/sh\ncd {REPO}\nexec env -i PATH=/usr/bin:/bin HOME={d.dir} {exports} "
                          f"{sys.executable} manage.py receive_mail\n")
        script.chmod(0o755)
        (d.dir / "var").mkdir(exist_ok=True)  # its KINPLAY_VAR: logs, the broker's files
        shutil.chown(d.dir / "var", NOBODY, NOGROUP)
        (d.etc / "aliases").write_text(f"play |{script}\nbounces |{script}\n")

    def _players_files(self):
        d = self.players
        (d.etc / "main.cf").write_text(main_cf(d, relay_to=self.kinplay, local=players_local(d)))
        (d.etc / "mailboxes").write_text("".join(f"{name}@{d.name} {name}\n" for name in self.mailboxes))
        (d.dir / "mail").mkdir(exist_ok=True)
        shutil.chown(d.dir / "mail", NOBODY, NOGROUP)

    def _start_dns(self):
        resolv = self.root / "resolv.conf"
        resolv.write_text(f"nameserver {self.dns_ip}\noptions attempts:2 timeout:1\n")
        # Debian's OpenDKIM resolves with libunbound, which does not read resolv.conf: it reads
        # the same records from a file (its TestPublicKeys option).
        (self.root / "dkim-keys").write_text("".join(
            f"{name} {value}\n" for name, value in _dkim_keys(self.zone)))
        (self.root / "zone").write_text(self.zone)
        code = ("import sys, time\n"
                "from dnslib.server import DNSServer\n"
                "from dnslib.zoneresolver import ZoneResolver\n"
                "server = DNSServer(ZoneResolver(open(sys.argv[1]).read()), address=sys.argv[2], port=53)\n"
                "server.start_thread()\n"
                "while server.isAlive():\n    time.sleep(1)\n")
        self._spawn([sys.executable, "-c", code, str(self.root / "zone"), self.dns_ip], "dns")

    def _start_milters(self, d: Domain):
        """Each milter in a mount namespace whose /etc/resolv.conf names the test's DNS server."""
        resolv = self.root / "resolv.conf"
        for name, flag in (("opendkim", "-x"), ("opendmarc", "-c")):
            inner = f"mount --bind {resolv} /etc/resolv.conf && exec /usr/sbin/{name} -f {flag} {d.etc}/{name}.conf"
            self._spawn(["unshare", "--mount", "--propagation", "private", "sh", "-c", inner], f"{d.name}-{name}")

    def _spawn(self, argv: list[str], name: str):
        log = (self.root / f"{name}.log").open("ab")
        self.procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    def _postfix(self, d: Domain, *args: str, check=True):
        done = subprocess.run(["postfix", "-c", str(d.etc), *args], capture_output=True, text=True)
        if check and done.returncode:
            raise RuntimeError(f"postfix {' '.join(args)} ({d.name}): {done.stderr}{self.log(d)}")
        return done

    # ------------------------------------------------------------------ used by the tests
    def set_access(self, d: Domain, answers: dict[str, str]):
        """What ``d``'s Postfix answers RCPT TO for these addresses ("450 4.2.1 try later"); the
        others it takes. Applied at once (``postfix reload``) when it runs."""
        (d.etc / "access").write_text("".join(f"{addr} {answer}\n" for addr, answer in answers.items()))
        if (d.dir / "spool" / "pid" / "master.pid").exists():
            self._postfix(d, "reload")

    def flush(self, d: Domain):
        """Try every deferred message again now (Postfix's own retry, without the wait)."""
        subprocess.run(["postqueue", "-c", str(d.etc), "-f"], check=True)

    def queued(self, d: Domain) -> str:
        return subprocess.run(["postqueue", "-c", str(d.etc), "-p"], capture_output=True, text=True).stdout

    def messages(self, name: str) -> list:
        """The messages in ``name``'s mailbox (an mbox file), oldest first."""
        return list(mailbox.mbox(self.players.dir / "mail" / name, create=False)) \
            if (self.players.dir / "mail" / name).exists() else []

    def clear(self):
        """Empty mailboxes, queues and logs: each test starts from nothing."""
        for d in (self.kinplay, self.players):
            subprocess.run(["postsuper", "-c", str(d.etc), "-d", "ALL"], capture_output=True)
            (d.dir / "maillog").write_text("")
        for box in (self.players.dir / "mail").iterdir():
            box.unlink()

    def kinplay_log(self) -> str:
        path = self.kinplay.dir / "maillog"
        return path.read_text(errors="replace") if path.exists() else ""

    def logs(self) -> str:
        return self.log(self.kinplay) + "\n" + self.log(self.players)

    def log(self, d: Domain) -> str:
        path = d.dir / "maillog"
        milters = [self.root / f"{d.name}-{n}.log" for n in ("opendkim", "opendmarc")]
        parts = [p.read_text(errors="replace")[-3000:] for p in (path, *milters) if p.exists()]
        return "\n".join(parts)

    def stop(self):
        for d in (self.kinplay, self.players):
            self._postfix(d, "stop", check=False)
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def _dkim_keys(zone_text: str):
    for line in zone_text.splitlines():
        name, _ttl, _in, _txt, value = line.split(None, 4)
        if "._domainkey." in name:
            yield name.rstrip("."), "".join(value.split('"')[1::2])


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_mail(system: MailSystem, name: str, count: int = 1, subject: str = "", timeout: float = 30) -> list:
    """The messages in ``name``'s mailbox whose subject starts with ``subject``, once there are
    ``count`` of them."""
    def arrived():
        found = [m for m in system.messages(name) if str(m["Subject"]).startswith(subject)]
        return found if len(found) >= count else None
    return wait_for(arrived, f"{count} message(s) {subject!r} in {name}'s mailbox", timeout=timeout, on_fail=system.logs)
