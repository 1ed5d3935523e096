"""The deployment files (deploy/) start every process the one way the cluster test and bin/run
start them, bin/node ROLE, and the image runs as no one's root with the production lock only."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def roles() -> set[str]:
    """The roles bin/node knows: its case labels."""
    return set(re.findall(r"^    (\w+)\) ", (ROOT / "bin" / "node").read_text(), re.M))


def test_bin_node_knows_every_process():
    assert roles() == {"web", "deadlines", "email", "beat", "migrate"}


def test_the_compose_file_runs_each_role_through_bin_node_and_migrates_first():
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    ours = {name: s for name, s in services.items() if s.get("image") == "kinplay"}
    assert {s["command"][0] for s in ours.values()} == roles()
    for name, service in ours.items():
        if name != "migrate":
            assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name


def test_the_systemd_units_run_bin_node():
    unit = (DEPLOY / "systemd" / "kinplay@.service").read_text()
    assert "ExecStart=/opt/kinplay/bin/node %i" in unit and "Restart=always" in unit and "User=kinplay" in unit
    enabled = re.search(r"systemctl enable --now (.*)", unit).group(1).split()
    assert {e.removeprefix("kinplay@") for e in enabled} == roles() - {"migrate"}
    assert "ExecStart=/opt/kinplay/bin/node migrate" in (DEPLOY / "systemd" / "kinplay-migrate.service").read_text()


def test_the_image_runs_bin_node_as_an_unprivileged_user_from_the_production_lock():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["bin/node"]' in dockerfile
    assert re.search(r"^USER kinplay$", dockerfile, re.M)
    assert "requirements.lock" in dockerfile and "requirements-dev" not in dockerfile


def test_the_balancers_ask_whether_a_node_is_ready():
    assert "uri /health/ready" in (DEPLOY / "haproxy.cfg").read_text()
    assert "proxy_set_header X-Forwarded-Proto" in (DEPLOY / "nginx.conf").read_text()


@pytest.mark.services
def test_haproxy_accepts_the_example_configuration():
    import shutil
    import subprocess

    from tests.conftest import unavailable

    if shutil.which("haproxy") is None:
        unavailable("haproxy is not installed (Debian: apt-get install haproxy)")
    checked = subprocess.run(["haproxy", "-c", "-f", str(DEPLOY / "haproxy.cfg")], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
