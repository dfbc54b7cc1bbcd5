"""Deploy/Containerfile, read as text: no container engine (buildah, podman, docker) is
installed or needed by the test stage, so the image is not built here. What is checked is what
broke for operators: short image names, a run line publishing on every interface, and a stop
timeout shorter than the shutdown grace period."""
import re

from deploy_support import DEPLOY

CONTAINERFILE = (DEPLOY / "Containerfile").read_text()


def test_base_images_are_fully_qualified():
    images = re.findall(r"^FROM\s+(\S+)", CONTAINERFILE, re.MULTILINE)
    assert len(images) == 2, images
    for image in images:
        registry, _, rest = image.partition("/")
        assert "." in registry or ":" in registry, f"{image}: name the registry (docker.io/library/...)"
        assert "/" in rest and ":" in rest.rsplit("/", 1)[1], f"{image}: registry/namespace/name:tag"


def test_run_example_publishes_on_loopback_with_a_long_stop_timeout(help_text):
    run = " ".join(line.lstrip("# ").rstrip("\\ ") for line in CONTAINERFILE.splitlines()
                   if line.startswith("#") and ("run " in line or line.startswith("#     ")))
    publishes = re.findall(r"-p\s+(\S+)", run)
    assert publishes and all(p.startswith("127.0.0.1:") for p in publishes), run
    timeout = re.search(r"--stop-timeout\s+(\d+)", run)
    assert timeout, run
    grace = re.search(r"--shutdown-grace-period DURATION\s+.*\(default (\d+)s\)", help_text).group(1)
    assert int(timeout.group(1)) > int(grace), f"--stop-timeout {timeout.group(1)} <= grace period {grace}s"
