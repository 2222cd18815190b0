package workload

import (
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// validateCase mutates rendertest.ValidWorkload and expects one diagnostic.
type validateCase struct {
	name     string
	mutate   func(w *spec.Workload)
	severity gpudiag.Severity
	path     string // gpudiag.Diagnostic.PathString()
	detail   string // substring of Detail
}

func TestValidateRules(t *testing.T) {
	cases := []validateCase{
		// gpu.count / gpu.requests
		{"negative count", func(w *spec.Workload) { w.GPU.Count = -1 }, gpudiag.SeverityError, "gpu.count", "an integer from 1 to 16"},
		{"count above one machine", func(w *spec.Workload) { w.GPU.Count = 17 }, gpudiag.SeverityError, "gpu.count", "a pod cannot span machines"},
		{"requests differ from count", func(w *spec.Workload) { w.GPU.Requests = rendertest.Ptr(int64(2)) }, gpudiag.SeverityError, "gpu.requests",
			`"must be equal to nvidia.com/gpu limit"`},
		{"requests differ, mixed MIG resource", func(w *spec.Workload) {
			w.Cloud, w.GPU = "generic", spec.GPU{Count: 1, Requests: rendertest.Ptr(int64(0)), Accelerator: "a100-40gb", Partition: "1g.5gb", MIGStrategy: "mixed"}
		}, gpudiag.SeverityError, "gpu.requests", "nvidia.com/mig-1g.5gb limit"},

		// accelerators
		{"unknown accelerator", func(w *spec.Workload) { w.GPU.Accelerator = "a100" }, gpudiag.SeverityError, "gpu.accelerator", `"a100-40gb", "a100-80gb"`},
		{"accelerator not on cloud", func(w *spec.Workload) { w.GPU.Accelerator = "a10g" }, gpudiag.SeverityError, "gpu.accelerator",
			`Accelerators offered on "gke": "a100-40gb"`},
		{"accelerator and accelerators", func(w *spec.Workload) { w.GPU.Accelerators = []string{"t4"} }, gpudiag.SeverityError, "gpu.accelerators",
			"mutually exclusive"},
		{"duplicate in preference list", func(w *spec.Workload) { w.GPU.Accelerator, w.GPU.Accelerators = "", []string{"l4", "l4"} },
			gpudiag.SeverityError, "gpu.accelerators[1]", "each model once"},
		{"unknown in preference list", func(w *spec.Workload) { w.GPU.Accelerator, w.GPU.Accelerators = "", []string{"l4", "k80"} },
			gpudiag.SeverityError, "gpu.accelerators[1]", `"t4"`},
		{"preference entry not on cloud", func(w *spec.Workload) {
			w.Cloud, w.GPU.Accelerator, w.GPU.Accelerators = "aks", "", []string{"t4", "l4"}
		}, gpudiag.SeverityError, "gpu.accelerators[1]", `Accelerators offered on "aks"`},

		// MIG
		{"unsupported partition", func(w *spec.Workload) {
			w.Cloud, w.GPU.Accelerator, w.GPU.Partition = "generic", "a100-40gb", "2g.20gb"
		},
			gpudiag.SeverityError, "gpu.partition", `"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"`},
		{"partition on model without MIG", func(w *spec.Workload) { w.GPU.Partition = "1g.5gb" }, gpudiag.SeverityError, "gpu.partition",
			`Models with MIG: "a100-40gb", "a100-80gb", "a30", "b200", "b300", "gb200", "h100-80gb", "h100-nvl", "h200", "rtx-pro-6000"`},
		{"partition with preference list", func(w *spec.Workload) {
			w.GPU.Accelerator, w.GPU.Accelerators, w.GPU.Partition = "", []string{"a100-40gb", "a100-80gb"}, "1g.10gb"
		}, gpudiag.SeverityError, "gpu.partition", "ambiguous"},
		{"partition GKE does not offer", func(w *spec.Workload) { w.GPU.Accelerator, w.GPU.Partition = "a100-40gb", "4g.20gb" },
			gpudiag.SeverityError, "gpu.partition", `Partitions GKE offers for a100-40gb: "1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"`},
		{"mixed strategy on GKE", func(w *spec.Workload) {
			w.GPU.Accelerator, w.GPU.Partition, w.GPU.MIGStrategy = "a100-40gb", "2g.10gb", "mixed"
		},
			gpudiag.SeverityError, "gpu.mig_strategy", `Allowed on GKE: "single"`},
		{"unknown MIG strategy", func(w *spec.Workload) { w.GPU.MIGStrategy = "none" }, gpudiag.SeverityError, "gpu.mig_strategy", `"single", "mixed"`},

		// sharing
		{"sharing with count 2", func(w *spec.Workload) { w.GPU.Count, w.GPU.Sharing = 2, "time-slicing" }, gpudiag.SeverityError, "gpu.count",
			"count = 1 with sharing"},
		{"sharing with MIG", func(w *spec.Workload) {
			w.Cloud, w.GPU = "generic", spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "1g.5gb", Sharing: "mps"}
		}, gpudiag.SeverityError, "gpu.sharing", "remove sharing"},
		{"unknown sharing", func(w *spec.Workload) { w.GPU.Sharing = "vgpu" }, gpudiag.SeverityError, "gpu.sharing", `"time-slicing", "mps"`},
		{"one shared client", func(w *spec.Workload) { w.GPU.Sharing, w.GPU.MaxSharedClients = "mps", 1 }, gpudiag.SeverityError,
			"gpu.max_shared_clients", "at least 2"},
		{"GKE shared clients above 48", func(w *spec.Workload) { w.GPU.Sharing, w.GPU.MaxSharedClients = "time-slicing", 49 },
			gpudiag.SeverityError, "gpu.max_shared_clients", "2 to 48"},
		{"shared clients ignored on EKS", func(w *spec.Workload) {
			w.Cloud, w.GPU = "eks", spec.GPU{Count: 1, Accelerator: "l4", Sharing: "time-slicing", MaxSharedClients: 4}
		}, gpudiag.SeverityWarning, "gpu.max_shared_clients", `"gke", "gke-autopilot", "generic"`},

		// DRA
		{"DRA with a device-plugin MIG strategy", func(w *spec.Workload) {
			w.Cloud, w.GPU = "generic", spec.GPU{Count: 1, Accelerator: "h100-80gb", Partition: "1g.10gb", MIGStrategy: "mixed", DRA: &spec.DRA{}}
		}, gpudiag.SeverityError, "gpu.mig_strategy", "remove mig_strategy"},
		{"DRA with sharing", func(w *spec.Workload) { w.GPU.Sharing, w.GPU.DRA = "time-slicing", &spec.DRA{} }, gpudiag.SeverityError, "gpu.sharing",
			"remove sharing or remove dra"},
		{"DRA invalid device class", func(w *spec.Workload) { w.GPU.DRA = &spec.DRA{DeviceClass: "GPU_Class"} }, gpudiag.SeverityError,
			"gpu.dra.device_class", `"gpu.nvidia.com"`},
		{"DRA too many selectors", func(w *spec.Workload) { w.GPU.DRA = &spec.DRA{Selectors: make([]string, 33)} }, gpudiag.SeverityError,
			"gpu.dra.selectors", "at most 32"},

		// identity
		{"unknown cloud", func(w *spec.Workload) { w.Cloud = "gcp" }, gpudiag.SeverityError, "cloud",
			`"gke", "gke-autopilot", "aks", "eks", "eks-auto", "karpenter", "generic"`},
		{"unknown kind", func(w *spec.Workload) { w.Kind = "replicaset" }, gpudiag.SeverityError, "kind", `"deployment", "statefulset", "job"`},
		{"invalid name", func(w *spec.Workload) { w.Name = "LLM_Server" }, gpudiag.SeverityError, "name", "DNS-1123 label"},
		{"name too long", func(w *spec.Workload) { w.Name = strings.Repeat("a", 64) }, gpudiag.SeverityError, "name", "at most 63"},
		{"invalid namespace", func(w *spec.Workload) { w.Namespace = "ml.team" }, gpudiag.SeverityError, "namespace", "DNS-1123 label"},
		{"image with spaces", func(w *spec.Workload) { w.Image = "vllm latest" }, gpudiag.SeverityError, "image", "registry/repo:tag"},
		{"invalid service account", func(w *spec.Workload) { w.ServiceAccountName = "Runner!" }, gpudiag.SeverityError, "service_account_name", "DNS-1123 subdomain"},

		// kind-specific
		{"replicas on job", func(w *spec.Workload) { w.Kind, w.Replicas = "job", rendertest.Ptr(int32(2)) }, gpudiag.SeverityError, "replicas", "job.parallelism"},
		{"negative replicas", func(w *spec.Workload) { w.Replicas = rendertest.Ptr(int32(-1)) }, gpudiag.SeverityError, "replicas", "0 or more"},
		{"job block on deployment", func(w *spec.Workload) { w.Job = &spec.JobControls{} }, gpudiag.SeverityError, "job", `empty job {} block`},
		{"negative backoff", func(w *spec.Workload) {
			w.Kind, w.Job = "job", &spec.JobControls{BackoffLimit: rendertest.Ptr(int32(-1))}
		}, gpudiag.SeverityError,
			"job.backoff_limit", "0 or more"},
		{"zero deadline", func(w *spec.Workload) {
			w.Kind, w.Job = "job", &spec.JobControls{ActiveDeadlineSeconds: rendertest.Ptr(int64(0))}
		}, gpudiag.SeverityError,
			"job.active_deadline_seconds", "1 or more"},
		{"zero completions", func(w *spec.Workload) {
			w.Kind, w.Job = "job", &spec.JobControls{Completions: rendertest.Ptr(int32(0))}
		}, gpudiag.SeverityError,
			"job.completions", "1 or more"},

		// metadata
		{"reserved label", func(w *spec.Workload) { w.Labels = map[string]string{spec.LabelName: "x"} }, gpudiag.SeverityError,
			`labels["app.kubernetes.io/name"]`, "set by the provider"},
		{"reserved pod label", func(w *spec.Workload) { w.PodLabels = map[string]string{spec.LabelInstance: "x"} }, gpudiag.SeverityError,
			`pod_labels["app.kubernetes.io/instance"]`, "set by the provider"},
		{"invalid label value", func(w *spec.Workload) { w.Labels = map[string]string{"team": "ML Platform"} }, gpudiag.SeverityError,
			`labels["team"]`, "at most 63"},
		{"invalid annotation key", func(w *spec.Workload) { w.PodAnnotations = map[string]string{"bad key": "x"} }, gpudiag.SeverityError,
			`pod_annotations["bad key"]`, "DNS subdomain prefix"},

		// container
		{"CUDA_VISIBLE_DEVICES set by hand", func(w *spec.Workload) { w.Env = map[string]string{"CUDA_VISIBLE_DEVICES": "0"} },
			gpudiag.SeverityWarning, `env["CUDA_VISIBLE_DEVICES"]`, "device plugin sets"},
		{"NVIDIA_VISIBLE_DEVICES set by hand", func(w *spec.Workload) { w.Env = map[string]string{"NVIDIA_VISIBLE_DEVICES": "all"} },
			gpudiag.SeverityWarning, `env["NVIDIA_VISIBLE_DEVICES"]`, "leave it unset"},
		{"LD_LIBRARY_PATH replaces GKE's", func(w *spec.Workload) { w.Env = map[string]string{"LD_LIBRARY_PATH": "/opt/lib"} },
			gpudiag.SeverityWarning, `env["LD_LIBRARY_PATH"]`, "/usr/local/nvidia/lib64"},
		{"invalid env name", func(w *spec.Workload) { w.Env = map[string]string{"1BAD": "x"} }, gpudiag.SeverityError, `env["1BAD"]`, "not starting with a digit"},
		{"port out of range", func(w *spec.Workload) { w.Ports = []int32{8000, 70000} }, gpudiag.SeverityError, "ports[1]", "between 1 and 65535"},
		{"duplicate port", func(w *spec.Workload) { w.Ports = []int32{8000, 8000} }, gpudiag.SeverityError, "ports[1]", "ports[0]"},

		// sizing
		{"unknown size", func(w *spec.Workload) { w.Size = "xl" }, gpudiag.SeverityError, "size", `"small", "medium", "large"`},
		{"invalid cpu", func(w *spec.Workload) { w.CPU = "lots" }, gpudiag.SeverityError, "cpu", "not a Kubernetes quantity"},
		{"negative memory", func(w *spec.Workload) { w.Memory = "-1Gi" }, gpudiag.SeverityError, "memory", "greater than zero"},
		{"absurd cpu", func(w *spec.Workload) { w.CPU = "1e1000000" }, gpudiag.SeverityError, "cpu", "at most 1024"},
		{"absurd cache size", func(w *spec.Workload) { w.ModelCache = &spec.ModelCache{Size: "2Pi"} }, gpudiag.SeverityError, "model_cache.size", "at most 1Pi"},
		{"invalid shm_size", func(w *spec.Workload) { w.ShmSize = "8 GB" }, gpudiag.SeverityError, "shm_size", "not a Kubernetes quantity"},
		{"shm larger than memory", func(w *spec.Workload) { w.ShmSize, w.Memory = "32Gi", "16Gi" }, gpudiag.SeverityWarning, "shm_size",
			"memory limit of 16Gi"},
		{"shm larger than preset memory", func(w *spec.Workload) { w.ShmSize = "16Gi" }, gpudiag.SeverityWarning, "shm_size", "memory limit of 12Gi"},

		// model cache
		{"invalid cache size", func(w *spec.Workload) { w.ModelCache = &spec.ModelCache{Size: "big"} }, gpudiag.SeverityError, "model_cache.size",
			"not a Kubernetes quantity"},
		{"claim_name with size", func(w *spec.Workload) { w.ModelCache = &spec.ModelCache{ClaimName: "weights", Size: "10Gi"} }, gpudiag.SeverityError,
			"model_cache.size", "remove claim_name"},
		{"unknown access mode", func(w *spec.Workload) { w.ModelCache = &spec.ModelCache{Size: "10Gi", AccessMode: "RWX"} }, gpudiag.SeverityError,
			"model_cache.access_mode", `"ReadWriteMany"`},
		{"relative mount path", func(w *spec.Workload) { w.ModelCache = &spec.ModelCache{Size: "10Gi", MountPath: "models"} }, gpudiag.SeverityError,
			"model_cache.mount_path", "absolute directory"},
		{"RWO cache with replicas", func(w *spec.Workload) {
			w.Replicas, w.ModelCache = rendertest.Ptr(int32(2)), &spec.ModelCache{Size: "10Gi"}
		},
			gpudiag.SeverityWarning, "model_cache.access_mode", "attaches to a single node"},
		{"RWOP cache with job parallelism", func(w *spec.Workload) {
			w.Kind, w.Job = "job", &spec.JobControls{Parallelism: rendertest.Ptr(int32(3))}
			w.ModelCache = &spec.ModelCache{Size: "10Gi", AccessMode: "ReadWriteOncePod"}
		}, gpudiag.SeverityError, "model_cache.access_mode", "admits a single pod"},

		// probes
		{"probe with two targets", func(w *spec.Workload) { w.LivenessProbe = &spec.Probe{HTTPPath: "/h", Port: 80, TCPPort: 80} },
			gpudiag.SeverityError, "liveness_probe.tcp_port", "sets http_path and tcp_port"},
		{"probe path without slash", func(w *spec.Workload) { w.ReadinessProbe = &spec.Probe{HTTPPath: "health", Port: 80} },
			gpudiag.SeverityError, "readiness_probe.http_path", `starting with "/"`},
		{"probe zero period", func(w *spec.Workload) {
			w.StartupProbe = &spec.Probe{TCPPort: 80, PeriodSeconds: rendertest.Ptr(int32(0))}
		},
			gpudiag.SeverityError, "startup_probe.period_seconds", "1 or more"},
		{"probe port out of range", func(w *spec.Workload) { w.StartupProbe = &spec.Probe{TCPPort: 65536} },
			gpudiag.SeverityError, "startup_probe.tcp_port", "between 1 and 65535"},

		// update strategy
		{"update_strategy on a statefulset", func(w *spec.Workload) { w.Kind, w.UpdateStrategy = "statefulset", spec.UpdateSurge },
			gpudiag.SeverityError, "update_strategy", `Allowed: remove update_strategy, or use kind = "deployment"`},
		{"unknown update_strategy", func(w *spec.Workload) { w.UpdateStrategy = "blue-green" },
			gpudiag.SeverityError, "update_strategy", "Allowed: recreate, rolling, surge"},
		{"update_strategy on a job", func(w *spec.Workload) { w.Kind, w.UpdateStrategy = "job", spec.UpdateRecreate },
			gpudiag.SeverityError, "update_strategy", `kind is "job"`},

		// spot
		{"spot on generic", func(w *spec.Workload) { w.Cloud, w.Spot = "generic", true }, gpudiag.SeverityWarning, "spot", `"eks-auto", "karpenter"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := rendertest.ValidWorkload()
			tc.mutate(&w)
			rendertest.RequireDiag(t, Validate(w), tc.severity, tc.path, tc.detail)
		})
	}
}

// Required values and rules needing a value are only enforced once every
// value is known: Render (strict), never Validate (plan, may be unknown).
func TestRequiredValuesAtApplyOnly(t *testing.T) {
	cases := []validateCase{
		{"missing name", func(w *spec.Workload) { w.Name = "" }, gpudiag.SeverityError, "name", "DNS-1123 label"},
		{"missing kind", func(w *spec.Workload) { w.Kind = "" }, gpudiag.SeverityError, "kind", `"deployment", "statefulset", "job"`},
		{"missing cloud", func(w *spec.Workload) { w.Cloud = "" }, gpudiag.SeverityError, "cloud", `"gke", "gke-autopilot"`},
		{"missing image", func(w *spec.Workload) { w.Image = "" }, gpudiag.SeverityError, "image", "image reference"},
		{"zero GPU count", func(w *spec.Workload) { w.GPU.Count = 0 }, gpudiag.SeverityError, "gpu.count", "an integer from 1 to 16"},
		{"autopilot without accelerator", func(w *spec.Workload) { w.Cloud, w.GPU.Accelerator = "gke-autopilot", "" }, gpudiag.SeverityError,
			"gpu.accelerator", `Accelerators offered on "gke-autopilot"`},
		{"partition without accelerator", func(w *spec.Workload) { w.Cloud, w.GPU.Accelerator, w.GPU.Partition = "generic", "", "1g.5gb" },
			gpudiag.SeverityError, "gpu.partition", `"a100-40gb"`},
		{"mig_strategy without partition", func(w *spec.Workload) { w.GPU.MIGStrategy = "single" }, gpudiag.SeverityError, "gpu.mig_strategy",
			"set gpu.partition"},
		{"max_shared_clients without sharing", func(w *spec.Workload) { w.GPU.MaxSharedClients = 4 }, gpudiag.SeverityError,
			"gpu.max_shared_clients", `"time-slicing", "mps"`},
		{"probe without target", func(w *spec.Workload) { w.StartupProbe = &spec.Probe{} }, gpudiag.SeverityError, "startup_probe", "exactly one of"},
		{"HTTP probe without port", func(w *spec.Workload) { w.ReadinessProbe = &spec.Probe{HTTPPath: "/ready"} }, gpudiag.SeverityError,
			"readiness_probe.port", "list the server port in ports"},
		{"model cache without claim or size", func(w *spec.Workload) { w.ModelCache = &spec.ModelCache{} }, gpudiag.SeverityError, "model_cache",
			"claim_name"},
		{"empty DRA selector", func(w *spec.Workload) { w.GPU.DRA = &spec.DRA{Selectors: []string{" "}} }, gpudiag.SeverityError,
			"gpu.dra.selectors[0]", "CEL expression"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := rendertest.ValidWorkload()
			tc.mutate(&w)
			if diags := Validate(w); diags.HasError() {
				t.Fatalf("Validate must treat zero values as unknown, got:\n%s", rendertest.FormatDiags(diags))
			}
			r, diags := ResolveAndRender(w, Options{})
			if r != nil {
				t.Fatal("Render must fail")
			}
			rendertest.RequireDiag(t, diags, tc.severity, tc.path, tc.detail)
		})
	}
}

func TestValidateUnknownEverythingIsClean(t *testing.T) {
	w := spec.Workload{GPU: spec.GPU{Accelerators: []string{"", "l4"}, DRA: &spec.DRA{Selectors: []string{""}}},
		ModelCache: &spec.ModelCache{}, StartupProbe: &spec.Probe{}}
	if diags := Validate(w); len(diags) > 0 {
		t.Fatalf("an all-unknown workload must validate cleanly at plan time:\n%s", rendertest.FormatDiags(diags))
	}
}

func TestValidWorkloadsHaveNoDiagnostics(t *testing.T) {
	for _, c := range goldenCases() {
		if c.expectWarnings {
			continue
		}
		t.Run(c.cloud+"/"+c.name, func(t *testing.T) {
			if diags := Validate(c.workload); len(diags) > 0 {
				t.Fatalf("unexpected diagnostics:\n%s", rendertest.FormatDiags(diags))
			}
		})
	}
}

func TestServerVersionCheck(t *testing.T) {
	w := rendertest.ValidWorkload()
	w.GPU.DRA = &spec.DRA{}
	rendertest.RequireDiag(t, ServerVersionCheck(w, utilversion.MajorMinor(1, 31)), gpudiag.SeverityError, "gpu.dra", "1.32 or newer")
	if diags := ServerVersionCheck(w, utilversion.MajorMinor(1, 32)); len(diags) > 0 {
		t.Fatalf("1.32 supports DRA: %s", rendertest.FormatDiags(diags))
	}
	w.GPU.DRA = nil
	if diags := ServerVersionCheck(w, utilversion.MajorMinor(1, 20)); len(diags) > 0 {
		t.Fatalf("no DRA, no version rule: %s", rendertest.FormatDiags(diags))
	}
	w.GPU.DRA = &spec.DRA{}
	if r, diags := ResolveAndRender(w, Options{ServerVersion: utilversion.MajorMinor(1, 30)}); r != nil || !diags.HasError() {
		t.Fatal("Render must apply the server version check")
	}
}

func TestDiagnosticPathString(t *testing.T) {
	d := gpudiag.Diagnostic{Path: gpudiag.At("gpu", "accelerators", 2)}
	if got := d.PathString(); got != "gpu.accelerators[2]" {
		t.Errorf("got %q", got)
	}
	d = gpudiag.Diagnostic{Path: gpudiag.At("env", gpudiag.MapKey("A B"))}
	if got := d.PathString(); got != `env["A B"]` {
		t.Errorf("got %q", got)
	}
}

func TestSecretEnvIsAReferenceOnly(t *testing.T) {
	w := spec.Workload{Name: "app", Namespace: "ml", Kind: spec.KindDeployment, Cloud: "gke", Image: "img",
		GPU:       spec.GPU{Count: 1, Accelerator: "l4"},
		SecretEnv: map[string]spec.SecretKeyRef{"HF_TOKEN": {Name: "hf", Key: "token"}}}
	r, diags := ResolveAndRender(w, Options{})
	if diags.HasError() {
		t.Fatal(diags)
	}
	env := deploymentOf(t, r).Spec.Template.Spec.Containers[0].Env
	last := env[len(env)-1]
	if last.Name != "HF_TOKEN" || last.Value != "" || last.ValueFrom == nil || last.ValueFrom.SecretKeyRef.Name != "hf" ||
		last.ValueFrom.SecretKeyRef.Key != "token" {
		t.Fatalf("secret_env must render a secretKeyRef and no value: %+v", last)
	}

	w.Env = map[string]string{"HF_TOKEN": "plain"}
	w.SecretEnv["bad name"] = spec.SecretKeyRef{Name: "Not_A_Name", Key: "k/ey"}
	got := Validate(w)
	for _, want := range []string{"Variable set twice", "Invalid environment variable name", "Invalid Secret name", "Invalid Secret key"} {
		found := false
		for _, d := range got {
			found = found || (d.Summary == want && d.Path[0] == "secret_env")
		}
		if !found {
			t.Errorf("want %q at secret_env, got %v", want, got)
		}
	}
}
