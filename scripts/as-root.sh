# Root for the scripts that need it: installing Debian packages, starting PostgreSQL's tools as its user, perf's
# probes. Sourced (bash) by the test command, the PostgreSQL and packaging scripts and the benchmarks, so that each
# runs as root on a CI machine and through sudo on a developer's.

# as_root COMMAND...: runs COMMAND as root: directly when this shell is root, else through sudo.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# apt_install PACKAGE...: installs Debian packages after updating the package index, without their recommended
# packages and without starting the services they bring (RUNLEVEL=1: nginx, Caddy, Prometheus, PostgreSQL's own
# cluster). Its output goes where the caller sends it.
apt_install() {
    as_root apt-get update -qq &&
        as_root env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "$@"
}
