"""The workflow on a real SLURM cluster, through profiles/slurm.

A one-node cluster on this machine: munged, slurmctld and slurmd started by hand from a
private slurm.conf (SLURM_CONF) and munge key in a temporary directory, on free ports,
so a SLURM already set up on the machine is neither used nor disturbed. The Debian
packages slurm-wlm and munge are installed when sinfo is missing (CI runs as root on a
fresh Debian 12); elsewhere a missing SLURM fails the test, it is never skipped.

The demo campaign then runs twice: `snakemake --profile profiles/slurm` on the
cluster and `snakemake --cores 2` locally; every table must come out byte-identical, and
every job must have gone through SLURM with its rule's threads, memory and runtime.
The daemons are stopped at the end, whatever happened; their logs are in every failure.
"""

from __future__ import annotations

import getpass
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from campaigns import REPO
from child_signals import default_disposition

pytestmark = [pytest.mark.slurm, pytest.mark.integration]

ROOT = REPO
SNAKEMAKE = Path(sys.executable).parent / "snakemake"
PROFILE = Path("profiles") / "slurm"
PACKAGES = ("slurm-wlm", "munge")
SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin")
STARTUP_TIMEOUT = 30  # seconds for the node to be idle after the daemons start


# ----------------------------------------------------------------- installation


def _which(tool: str) -> str | None:
    """The tool on PATH, or in an sbin directory (the daemons; PATH may lack sbin)."""
    found = shutil.which(tool)
    if found:
        return found
    for folder in SBIN:
        candidate = Path(folder) / tool
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _ensure_slurm_installed() -> None:
    """Install slurm-wlm and munge from Debian when sinfo is missing (root only)."""
    if _which("sinfo") is not None:
        return
    if os.geteuid() != 0:
        pytest.fail(
            "SLURM is not installed and this test installs it only as root; install it with "
            f"`sudo apt-get install {' '.join(PACKAGES)}` (Debian/Ubuntu), or run the tests as root"
        )
    if shutil.which("apt-get") is None:
        pytest.fail(f"SLURM is not installed and there is no apt-get to install {' '.join(PACKAGES)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (
        ["apt-get", "update", "-qq"],
        # Recommends pull in a desktop's worth of packages (a browser among them);
        # everything SLURM and munge need here is in Depends.
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
    ):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            pytest.fail(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    missing = [t for t in ("sinfo", "sbatch", "scontrol", "squeue", "scancel", "slurmctld", "slurmd", "munged")
               if _which(t) is None]
    if missing:
        pytest.fail(f"installed {' '.join(PACKAGES)} but {', '.join(missing)} still not found")


# ----------------------------------------------------------------- the cluster


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _real_memory_mb() -> int:
    """RealMemory for slurm.conf: MemTotal less a margin for the daemons and the system."""
    meminfo = Path("/proc/meminfo").read_text()
    total_mb = int(re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.M).group(1)) // 1024
    return max(1024, total_mb - max(512, total_mb // 10))


@dataclass
class Cluster:
    """A running one-node SLURM cluster: its directory, environment and daemons."""

    base: Path
    env: dict[str, str]
    node: str
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    def run(self, *cmd: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run([_which(cmd[0]) or cmd[0], *cmd[1:]], env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def logs(self) -> str:
        """Every daemon log, and whether each daemon is still alive: for failure messages."""
        parts = []
        for name, proc in self.procs.items():
            code = proc.poll()
            parts.append(f"{name} (pid {proc.pid}): {'running' if code is None else f'exited with {code}'}")
        for path in sorted(self.base.glob("*.log")):
            text = path.read_text(errors="replace")
            parts.append(f"----- {path.name} (last 6000 characters)\n{text[-6000:]}")
        return "\n".join(parts)

    def fail(self, message: str) -> None:
        pytest.fail(f"{message}\n\n===== SLURM daemons\n{self.logs()}", pytrace=False)


def _slurm_conf(cluster: Cluster, user: str, ports: tuple[int, int]) -> str:
    base = cluster.base
    cpus = max(2, os.cpu_count() or 1)  # ingest_collection asks for config threads (2)
    return f"""\
# A one-node cluster for tests/test_slurm.py (no accounting: the profile polls scontrol).
ClusterName=irmeta-test
SlurmctldHost={cluster.node}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser={user}
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={base}/munge.socket
StateSaveLocation={base}/state
SlurmdSpoolDir={base}/spool
SlurmctldPidFile={base}/slurmctld.pid
SlurmdPidFile={base}/slurmd.pid
SlurmctldLogFile={base}/slurmctld.log
SlurmdLogFile={base}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=900
InactiveLimit=0
DefMemPerCPU=512
KillWait=5
NodeName={cluster.node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={_real_memory_mb()} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _start(cluster: Cluster, name: str, *args: str) -> None:
    exe = _which(name)
    if exe is None:
        cluster.fail(f"{name} not found")
    out = open(cluster.base / f"{name}.stdout.log", "wb")
    cluster.procs[name] = subprocess.Popen([exe, *args], env=cluster.env, stdout=out, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True,
                                           preexec_fn=default_disposition(signal.SIGTERM))  # _stop sends it
    out.close()


def _wait(cluster: Cluster, what: str, ready, timeout: float = STARTUP_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        dead = [name for name, proc in cluster.procs.items() if proc.poll() is not None]
        if dead:
            cluster.fail(f"{', '.join(dead)} exited while waiting for {what}")
        try:
            if ready():
                return
        except subprocess.TimeoutExpired:
            pass  # a client command waiting on a daemon that is not up yet
        time.sleep(0.5)
    cluster.fail(f"timed out after {timeout} s waiting for {what}")


def _node_state(cluster: Cluster) -> str:
    proc = cluster.run("sinfo", "--noheader", "--Node", "--format=%T")
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _job_steps(cluster: Cluster) -> list[int]:
    """This cluster's slurmstepd processes (they hold slurmd's log in the cluster directory)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or (proc / "comm").read_text().strip() != "slurmstepd":
                continue
            if any(os.readlink(fd).startswith(str(cluster.base)) for fd in (proc / "fd").iterdir()):
                pids.append(int(proc.name))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return pids


def _stop(cluster: Cluster) -> list[str]:
    """Cancel every job, then stop slurmd, slurmctld and munged; what would not stop."""
    problems = []
    if cluster.procs.get("slurmctld") and cluster.procs["slurmctld"].poll() is None:
        cluster.run("scancel", "--full", "--user", getpass.getuser())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            queue = cluster.run("squeue", "--noheader", "--format=%i")
            if queue.returncode != 0 or not queue.stdout.strip():
                break
            time.sleep(0.5)
        else:
            problems.append(f"jobs still queued: {queue.stdout.split()}")
    deadline = time.monotonic() + 15
    while _job_steps(cluster) and time.monotonic() < deadline:
        time.sleep(0.2)
    for name in ("slurmd", "slurmctld", "munged"):
        proc = cluster.procs.get(name)
        if proc is None or proc.poll() is not None:
            continue
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
            problems.append(f"{name} needed SIGKILL")
    for pid in _job_steps(cluster):
        try:
            os.kill(pid, signal.SIGKILL)
            problems.append(f"slurmstepd {pid} needed SIGKILL")
        except ProcessLookupError:
            pass
    return problems


@pytest.fixture(scope="module")
def cluster():
    _ensure_slurm_installed()
    user = getpass.getuser()
    # A short path under /tmp: the munge socket path must fit in sockaddr_un (108 bytes);
    # world-executable, as munged requires of its socket's directory.
    base = Path(tempfile.mkdtemp(prefix="irmeta-slurm-"))
    base.chmod(0o755)
    for folder in ("state", "spool"):
        (base / folder).mkdir()
    key = base / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    # The test's own SLURM_CONF; nothing inherited from a surrounding SLURM job.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_"))}
    env["SLURM_CONF"] = str(base / "slurm.conf")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", ""), *SBIN])
    env.pop("SNAKEMAKE_PROFILE", None)
    node = socket.gethostname().split(".")[0]
    c = Cluster(base=base, env=env, node=node)
    try:
        (base / "slurm.conf").write_text(_slurm_conf(c, user, (_free_port(), _free_port())))
        _start(c, "munged", "--foreground", f"--socket={base}/munge.socket", f"--key-file={key}",
               f"--pid-file={base}/munged.pid", f"--seed-file={base}/munged.seed")
        _wait(c, "the munge socket", (base / "munge.socket").exists)
        _start(c, "slurmctld", "-D", "-c", "-i")
        _wait(c, "slurmctld", lambda: c.run("scontrol", "ping").stdout.count("UP") > 0)
        _start(c, "slurmd", "-D", "-N", node)
        _wait(c, f"node {node} idle in sinfo", lambda: _node_state(c) == "idle")
        yield c
    finally:
        problems = _stop(c)
        leftover = [name for name, proc in c.procs.items() if proc.poll() is None]
        shutil.rmtree(base, ignore_errors=True)
        # Reported unless the setup already failed (that error says more).
        if (problems or leftover) and sys.exc_info()[0] is None:
            pytest.fail(f"SLURM teardown: {problems}; still running: {leftover}")


# ----------------------------------------------------------------- the workflow


def _copy_workflow(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "Snakefile", dest / "Snakefile")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("workflow", "config", "profiles"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    return dest


def _snakemake(workdir: Path, *args: str, env: dict[str, str] | None = None,
               timeout: float = 600) -> subprocess.CompletedProcess:
    cmd = [str(SNAKEMAKE), "--directory", str(workdir), "--snakefile", str(workdir / "Snakefile"), *args]
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)


def _memory_mb(value: str) -> float:
    """scontrol's memory (2G, 1024M, 1.50G) in MB."""
    number, unit = re.fullmatch(r"([\d.]+)([KMGT]?)", value).groups()
    return float(number) * {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024**2}[unit]


def _time_limit(minutes: int) -> str:
    """scontrol's TimeLimit for a runtime in minutes: [D-]HH:MM:SS."""
    days, rest = divmod(minutes, 24 * 60)
    clock = f"{rest // 60:02d}:{rest % 60:02d}:00"
    return f"{days}-{clock}" if days else clock


def _jobs(cluster: Cluster) -> dict[str, dict[str, str]]:
    """Every job slurmctld remembers (MinJobAge is 900 s here), by id: scontrol's fields."""
    proc = cluster.run("scontrol", "show", "job", "--oneliner")
    if proc.returncode != 0:
        cluster.fail(f"scontrol show job failed: {proc.stderr}")
    jobs = {}
    for line in proc.stdout.splitlines():
        fields = dict(re.findall(r"(\w[\w:/]*)=(\S*)", line))
        if "JobId" in fields:
            jobs[fields["JobId"]] = fields
    return jobs


def _tables(workdir: Path) -> dict[str, bytes]:
    results = workdir / "results"
    paths = [*(results / "demo" / "tables").glob("*.csv"), *(results / "paper").glob("*.csv")]
    return {str(path.relative_to(results)): path.read_bytes() for path in paths}


# docs: slurm.md: snakemake --profile profiles/slurm
def test_demo_workflow_on_slurm_matches_local_run(cluster, tmp_path):
    # The local reference run goes on meanwhile: the cluster run mostly waits on SLURM.
    local = _copy_workflow(tmp_path / "local")
    local_log = tmp_path / "local.log"
    with open(local_log, "wb") as out:
        reference = subprocess.Popen(
            [str(SNAKEMAKE), "--directory", str(local), "--snakefile", str(local / "Snakefile"), "--cores", "2"],
            cwd=local, stdout=out, stderr=subprocess.STDOUT)
    try:
        remote = _copy_workflow(tmp_path / "slurm")
        started = time.monotonic()
        # the job listing (rule, SLURM job id) is what this test reads: asked for, as users do
        proc = _snakemake(remote, "--profile", str(remote / PROFILE), "--quiet", "host", env=cluster.env)
        elapsed = time.monotonic() - started
        reference.wait(timeout=300)
    finally:
        if reference.poll() is None:
            reference.kill()
            reference.wait()
    assert reference.returncode == 0, f"local run failed:\n{local_log.read_text()}"
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        slurm_logs = "\n".join(f"----- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                               for p in sorted((remote / "results" / "logs" / "slurm").glob("*.log")))
        cluster.fail(f"snakemake --profile {PROFILE} failed ({proc.returncode}) after {elapsed:.0f} s:\n"
                     f"{output}\n===== SLURM job logs\n{slurm_logs}")
    print(f"cluster run: {elapsed:.1f} s")

    # Every job but the local rule `all` went to SLURM, asking for what its rule declares
    # (as Snakemake printed it): threads -> CPUs, mem_mb -> memory, runtime -> time limit.
    blocks = re.findall(r"^rule (\w+):\n(.*?)^Submitted job \d+ with external jobid '(\d+)", output, re.M | re.S)
    planned = re.findall(r"^rule \w+:$", output, re.M)  # the local rule prints "localrule all:"
    assert len(planned) >= 15 and len(blocks) == len(planned), output
    jobs = _jobs(cluster)
    for rule, block, jobid in blocks:
        job = jobs.get(jobid)
        assert job is not None, f"slurmctld does not know job {jobid} ({rule})"
        assert job["JobState"] == "COMPLETED" and job["ExitCode"] == "0:0", job
        assert job["JobName"] == f"irmeta.{rule}", job
        assert (remote / "results" / "logs" / "slurm" / f"{rule}-{jobid}.log").is_file(), (rule, jobid)
        threads = re.search(r"^\s+threads: (\d+)$", block, re.M)
        resources = dict(re.findall(r"\b(mem_mb|runtime)=(\d+)", block))
        assert int(job["NumCPUs"]) == (int(threads.group(1)) if threads else 1), (rule, block, job)
        assert _memory_mb(job["MinMemoryNode"]) == int(resources["mem_mb"]), (rule, block, job)
        assert job["TimeLimit"] == _time_limit(int(resources["runtime"])), (rule, block, job)
    rules = [rule for rule, _, _ in blocks]
    assert "ingest_collection" in rules and rules.count("sample_stability") == 2, rules
    assert any(int(jobs[jobid]["NumCPUs"]) > 1 for _, _, jobid in blocks)  # threads really passed

    # The shards ran side by side: at some moment two jobs were running at once.
    intervals = sorted((jobs[jobid]["StartTime"], jobs[jobid]["EndTime"]) for _, _, jobid in blocks)
    overlapping = any(intervals[i + 1][0] < intervals[i][1] for i in range(len(intervals) - 1))
    assert overlapping, intervals

    # The same tables, byte for byte, as a local run.
    mine, theirs = _tables(remote), _tables(local)
    assert len(theirs) >= 12 and sorted(mine) == sorted(theirs), (sorted(mine), sorted(theirs))
    different = [name for name in theirs if mine[name] != theirs[name]]
    assert not different, f"tables differ from the local run: {different}"


# ----------------------------------------------------------------- the status command


def _status_module():
    spec = importlib.util.spec_from_file_location("slurm_status", ROOT / PROFILE / "status.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_status_states_map_to_snakemake_outcomes(monkeypatch):
    status = _status_module()
    for state, outcome in (
        ("COMPLETED", "success"),
        ("PENDING", "running"), ("CONFIGURING", "running"), ("RUNNING", "running"),
        ("COMPLETING", "running"), ("SUSPENDED", "running"), ("REQUEUED", "running"),
        ("FAILED", "failed"), ("CANCELLED by 0", "failed"), ("CANCELLED+", "failed"), ("TIMEOUT", "failed"),
        ("OUT_OF_MEMORY", "failed"), ("NODE_FAIL", "failed"), ("PREEMPTED", "failed"), ("BOOT_FAIL", "failed"),
        ("DEADLINE", "failed"),
    ):
        assert status.classify(state) == outcome, state

    # A controller that does not answer is not a failed job: Snakemake asks again.
    def unreachable(jobid):
        raise status.Unreachable("connection refused")

    monkeypatch.setattr(status, "scontrol_state", unreachable)
    assert status.status("12") == "running"
    # A job neither scontrol nor sacct knows is failed (it cannot be told apart from one).
    monkeypatch.setattr(status, "scontrol_state", lambda jobid: None)
    monkeypatch.setattr(status, "sacct_state", lambda jobid: None)
    assert status.status("12") == "failed"
    monkeypatch.setattr(status, "sacct_state", lambda jobid: "COMPLETED")
    assert status.status("12;cluster") == "success"


def test_status_command_on_real_jobs(cluster, tmp_path):
    """status.py as the plugin runs it (its shebang, SLURM_CONF from the environment)."""
    script = ROOT / PROFILE / "status.py"
    assert os.access(script, os.X_OK), f"{script} is not executable"

    def submit(command: str) -> str:
        proc = cluster.run("sbatch", "--parsable", f"--output={tmp_path}/%j.out", "--time=5", "--mem=100",
                           "--wrap", command)
        if proc.returncode != 0:
            cluster.fail(f"sbatch failed: {proc.stderr}")
        return proc.stdout.strip()

    def state(jobid: str) -> str:
        proc = subprocess.run([str(script), jobid], env=cluster.env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.count("\n") == 1, (proc.stdout, proc.stderr)
        return proc.stdout.strip()

    def settle(jobid: str) -> str:
        deadline = time.monotonic() + 30
        while (outcome := state(jobid)) == "running" and time.monotonic() < deadline:
            time.sleep(0.5)
        return outcome

    done, broken, slow = submit("true"), submit("exit 3"), submit("sleep 300")
    assert settle(done) == "success"
    assert settle(broken) == "failed"
    assert state(slow) == "running"
    cluster.run("scancel", slow)
    assert settle(slow) == "failed"
    assert state(f"{done};irmeta-test") == "success"  # sbatch --parsable on a federation: "id;cluster"
    assert state("99999999") == "failed"  # unknown to scontrol, and no accounting for sacct
