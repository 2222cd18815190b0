package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scripts/demo.sh is run here with a stub terraform and a stub kubectl (no
// cluster, about a second): every step that fails must fail the demo with
// its output shown, and what it prints must be true to what it read.

// fakeTerraform answers what the demo asks of terraform. An apply in the
// directory named by FAKE_TF_FAIL fails with an error on stderr, as a real
// apply does.
const fakeTerraform = `#!/usr/bin/env bash
set -euo pipefail
dir=$(basename "$PWD")
case "$1" in
apply)
	echo "gpu_workload.x: Creating..."
	if [[ ${FAKE_TF_FAIL:-} == "$dir" ]]; then
		echo "Error: fake apply failure in $dir" >&2
		exit 1
	fi
	echo "gpu_workload.x: Creation complete after 1s [id=ns/x]"
	echo "Apply complete! Resources: 1 added, 0 changed, 0 destroyed."
	;;
output)
	case "${@: -1}" in
	placements) echo '{"gke-inference":{"cloud":"gke","resource":"nvidia.com/gpu","nodes":["gke-a100-0"]}}' ;;
	helm_values) echo '{"fiftyone-teams-app":"a: 1\n"}' ;;
	*) exit 1 ;;
	esac
	;;
*) echo "fake terraform: unexpected $*" >&2; exit 1 ;;
esac
`

// fakeKubectl serves the nodes and ResourceSlices of FAKE_DIR, logs its
// arguments there, and fails its "get nodes" when FAKE_KUBECTL_FAIL=nodes.
const fakeKubectl = `#!/usr/bin/env bash
set -euo pipefail
printf '%s\n' "$*" >>"$FAKE_DIR/kubectl.log"
args=" $* "
case "$args" in
*" get nodes "*"-o json"*)
	if [[ ${FAKE_KUBECTL_FAIL:-} == nodes ]]; then echo "error: the server is currently unable to handle the request" >&2; exit 1; fi
	cat "$FAKE_DIR/nodes.json" ;;
*" get resourceslices "*) cat "$FAKE_DIR/slices.json" ;;
*" create namespace "*) echo "apiVersion: v1" ;;
*" apply -f - "*) cat >/dev/null ;;
*" get job train-2 "*) echo uid-2 ;;
*"Admitted\")].status}"*) echo True ;;
*" get pods -l app.kubernetes.io/name=pretrain "*) printf 'gke-tas-0\ngke-tas-1\n' ;;
*" get node gke-tas-"*) echo "node block=b1 subblock=s1" ;;
*) echo "TABLE" ;;
esac
`

const fakeNodes = `{"items": [
 {"metadata": {"name": "gke-autopilot-l4-0", "labels": {"fixtures.gpuform.io/pool": "gke-autopilot-l4", "fixtures.gpuform.io/cloud": "gke-autopilot", "node.kubernetes.io/instance-type": "g2-standard-8"}},
  "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
  "status": {"allocatable": {"cpu": "8", "nvidia.com/gpu": "1"}}},
 {"metadata": {"name": "gke-autopilot-l4-1", "labels": {"fixtures.gpuform.io/pool": "gke-autopilot-l4", "fixtures.gpuform.io/cloud": "gke-autopilot", "node.kubernetes.io/instance-type": "g2-standard-24"}},
  "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
  "status": {"allocatable": {"cpu": "24", "nvidia.com/gpu": "2"}}},
 {"metadata": {"name": "eks-g5-0", "labels": {"fixtures.gpuform.io/pool": "eks-g5", "fixtures.gpuform.io/cloud": "eks", "node.kubernetes.io/instance-type": "g5.xlarge"}},
  "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
  "status": {"allocatable": {"nvidia.com/gpu": "1"}}},
 {"metadata": {"name": "dra-h100-0", "labels": {"fixtures.gpuform.io/pool": "dra-h100", "fixtures.gpuform.io/cloud": "generic", "node.kubernetes.io/instance-type": "p5.48xlarge"}},
  "spec": {},
  "status": {"allocatable": {"cpu": "192"}}}
]}`

const fakeSlices = `{"items": [{"spec": {"nodeName": "dra-h100-0", "driver": "gpu.nvidia.com", "devices": [
 {"name": "gpu-0", "attributes": {"type": {"string": "gpu"}}},
 {"name": "gpu-1", "attributes": {"type": {"string": "gpu"}}}]}}]}`

// runDemo runs scripts/demo.sh with the stubs and the given environment,
// returning its combined output, the stub directory and its exit error.
func runDemo(t *testing.T, env ...string) (string, string, error) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("the demo needs python3 (README: Requirements): %v", err)
	}
	dir := t.TempDir()
	kubeDir := filepath.Join(dir, "cache", "bin", "kube-"+versionsEnv(t, "KUBE_VERSION"))
	writeExec(t, filepath.Join(dir, "terraform"), fakeTerraform)
	writeExec(t, filepath.Join(kubeDir, "kubectl"), fakeKubectl)
	for name, body := range map[string]string{"nodes.json": fakeNodes, "slices.json": fakeSlices} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "scripts/demo.sh")
	cmd.Env = append(os.Environ(),
		"TF_ACC_TERRAFORM_PATH="+filepath.Join(dir, "terraform"),
		"GPU_CLUSTER_CACHE="+filepath.Join(dir, "cache"),
		"GPU_CLUSTER_DIR="+filepath.Join(dir, "cluster"),
		"GPU_DEMO_OUTPUT="+filepath.Join(dir, "out"),
		"GPU_CHARTS_DIR="+filepath.Join(dir, "no-charts"),
		"PROVIDER_BIN="+filepath.Join(dir, "bin", "terraform-provider-gpu"),
		"FAKE_DIR="+dir,
	)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), dir, err
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// versionsEnv reads one pinned version from the local cluster's versions.env,
// where the demo finds its kubectl.
func versionsEnv(t *testing.T, key string) string {
	t.Helper()
	raw, err := os.ReadFile("scripts/localcluster/versions.env")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
			return v
		}
	}
	t.Fatalf("versions.env has no %s", key)
	return ""
}

// Each terraform apply of the demo that fails stops it with a non-zero exit
// and shows terraform's error; so does a failed kubectl read. At ddf7db6 the
// applies were piped into `grep ... || true`: the demo went on and exited 0.
func TestDemo_failsLoudly(t *testing.T) {
	for _, tc := range []struct {
		name, env, want string
	}{
		{"quickstart apply", "FAKE_TF_FAIL=quickstart", "Error: fake apply failure in quickstart"},
		{"queues apply", "FAKE_TF_FAIL=queues", "Error: fake apply failure in queues"},
		{"dra apply", "FAKE_TF_FAIL=dra", "Error: fake apply failure in dra"},
		{"topology apply", "FAKE_TF_FAIL=topology", "Error: fake apply failure in topology"},
		{"kubectl get nodes", "FAKE_KUBECTL_FAIL=nodes", "the server is currently unable to handle the request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, _, err := runDemo(t, tc.env)
			if err == nil {
				t.Fatalf("the demo exited 0 although the %s failed:\n%s", tc.name, out)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("the demo's output does not show the failure %q:\n%s", tc.want, out)
			}
			if strings.Contains(out, "State and CLI config are in") {
				t.Errorf("the demo went on to its end after the %s failed:\n%s", tc.name, out)
			}
		})
	}
}

// With every step succeeding the demo exits 0 and prints one pool table in
// which a pool of two machine sizes shows both, taints keep their values
// (key=value:effect, key:effect without one) and a DRA node shows its
// ResourceSlices' devices; the DRA claim table's headers name what their
// columns hold.
func TestDemo_tables(t *testing.T) {
	out, dir, err := runDemo(t)
	if err != nil {
		t.Fatalf("the demo failed with every stub succeeding: %v\n%s", err, out)
	}
	if n := regexp.MustCompile(`(?m)^POOL\s`).FindAllStringIndex(out, -1); len(n) != 1 {
		t.Errorf("%d pool tables, want 1:\n%s", len(n), out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^gke-autopilot-l4\s+gke-autopilot\s+2\s+g2-standard-8,g2-standard-24\s+nvidia\.com/gpu=1 / nvidia\.com/gpu=2\s+nvidia\.com/gpu=present:NoSchedule$`),
		regexp.MustCompile(`(?m)^eks-g5\s+eks\s+1\s+g5\.xlarge\s+nvidia\.com/gpu=1\s+nvidia\.com/gpu:NoSchedule$`),
		regexp.MustCompile(`(?m)^dra-h100\s+generic\s+1\s+p5\.48xlarge\s+DRA gpu\.nvidia\.com: 2 gpu\s+-$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("no pool row matching %s:\n%s", want, out)
		}
	}

	log, err := os.ReadFile(filepath.Join(dir, "kubectl.log"))
	if err != nil {
		t.Fatal(err)
	}
	claims := regexp.MustCompile(`get resourceclaims -o custom-columns=(\S+)`).FindStringSubmatch(string(log))
	if claims == nil {
		t.Fatalf("the demo shows no ResourceClaim table; kubectl calls:\n%s", log)
	}
	// Each header must name the field its column reads.
	field := map[string]string{"CLAIM": "name", "CLASS": "deviceClassName", "DRIVER": "driver", "POOL": "pool", "DEVICES": "device"}
	var headers []string
	for _, col := range strings.Split(claims[1], ",") {
		header, path, _ := strings.Cut(col, ":")
		headers = append(headers, header)
		last := path[strings.LastIndex(path, ".")+1:]
		if want, ok := field[header]; !ok || last != want {
			t.Errorf("claim column %s shows %s", header, path)
		}
	}
	if got := strings.Join(headers, ","); got != "CLAIM,CLASS,DRIVER,POOL,DEVICES" {
		t.Errorf("claim columns %s, want CLAIM,CLASS,DRIVER,POOL,DEVICES", got)
	}
}

// `make demo` starts the cluster without its own pool table, so the demo's
// is the only one (the cluster's summary once printed a second, wrong one).
func TestDemo_makeStartsClusterWithoutSummary(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is required (README: Requirements): %v", err)
	}
	out, err := exec.Command("make", "-n", "demo").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n demo: %v\n%s", err, out)
	}
	var up, demo int
	for line := range strings.Lines(string(out)) {
		switch {
		case strings.Contains(line, "cluster.sh up"):
			up++
			if !strings.Contains(line, "GPU_CLUSTER_SUMMARY=0") {
				t.Errorf("make demo starts the cluster with its pool table: %s", line)
			}
		case strings.Contains(line, "scripts/demo.sh"):
			demo++
		}
	}
	if up != 1 || demo != 1 {
		t.Errorf("make demo runs cluster.sh up %d times and demo.sh %d times, want once each:\n%s", up, demo, out)
	}
}
