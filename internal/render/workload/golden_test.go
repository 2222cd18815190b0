package workload

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// goldenCase is one reviewed rendering: testdata/golden/<cloud>/<name>.yaml.
type goldenCase struct {
	cloud, name, description string
	workload                 spec.Workload
	opts                     Options
	// expectWarnings marks cases whose point is a warning (shown in the
	// golden header).
	expectWarnings bool
}

func goldenWorkload(cloud spec.Cloud, name, kind string, g spec.GPU) spec.Workload {
	return spec.Workload{
		Name:  name,
		Kind:  kind,
		Cloud: string(cloud),
		Image: "registry.example/ml/" + name + ":1.0",
		GPU:   g,
	}
}

func deploymentCase(cloud spec.Cloud, accelerator string, description string) goldenCase {
	w := goldenWorkload(cloud, "inference", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: accelerator})
	w.Ports = []int32{8000}
	return goldenCase{cloud: string(cloud), name: "deployment-1gpu", description: description, workload: w}
}

func jobCase(cloud spec.Cloud, accelerator string, count int64, description string) goldenCase {
	w := goldenWorkload(cloud, "train", spec.KindJob, spec.GPU{Count: count, Accelerator: accelerator})
	w.Command = []string{"torchrun", "--nproc-per-node=" + strconv.FormatInt(count, 10), "train.py"}
	w.ShmSize = "16Gi"
	w.Job = &spec.JobControls{BackoffLimit: rendertest.Ptr(int32(2)), ActiveDeadlineSeconds: rendertest.Ptr(int64(86400)), TTLSecondsAfterFinished: rendertest.Ptr(int32(3600))}
	return goldenCase{cloud: string(cloud), name: "job-multi-gpu", description: description, workload: w}
}

func spotCase(cloud spec.Cloud, accelerator string, description string) goldenCase {
	w := goldenWorkload(cloud, "batch-embed", spec.KindJob, spec.GPU{Count: 1, Accelerator: accelerator})
	w.Spot = true
	w.Job = &spec.JobControls{Completions: rendertest.Ptr(int32(10)), Parallelism: rendertest.Ptr(int32(5)), BackoffLimit: rendertest.Ptr(int32(20))}
	return goldenCase{cloud: string(cloud), name: "spot", description: description, workload: w, expectWarnings: cloud == spec.CloudGeneric}
}

func goldenCases() []goldenCase {
	cases := []goldenCase{
		deploymentCase(spec.CloudGKE, "l4", "One L4 on GKE Standard: gke-accelerator selector, GKE LD_LIBRARY_PATH, nvidia.com/gpu toleration."),
		jobCase(spec.CloudGKE, "a100-40gb", 8, "Eight A100 40GB (a2-highgpu-8g) training job; large preset x 8."),
		spotCase(spec.CloudGKE, "t4", "T4 on Spot VMs: gke-spot selector and toleration."),

		deploymentCase(spec.CloudGKEAutopilot, "l4", "Autopilot also selects gke-accelerator-count = the GPU count."),
		jobCase(spec.CloudGKEAutopilot, "h100-80gb", 8, "H100 80GB has two GKE accelerator values (A3 High, A3 Mega): node affinity In both."),
		spotCase(spec.CloudGKEAutopilot, "l4", "Autopilot Spot pods."),

		deploymentCase(spec.CloudAKS, "t4", "T4 on AKS: accelerator=nvidia selector, NCasT4_v3 sizes, sku=gpu toleration."),
		jobCase(spec.CloudAKS, "a100-80gb", 4, "Four A100 80GB: any VM size carrying the part."),
		spotCase(spec.CloudAKS, "v100-16gb", "V100 on AKS spot node pools: scalesetpriority=spot selector and toleration."),

		deploymentCase(spec.CloudEKS, "a10g", "A10G on EKS managed node groups: k8s.amazonaws.com/accelerator (cluster-autoscaler convention)."),
		jobCase(spec.CloudEKS, "v100-32gb", 8, "V100 32GB shares nvidia-tesla-v100 with the 16GB part: the instance type (p3dn) tells them apart."),
		spotCase(spec.CloudEKS, "l4", "EKS managed node group Spot capacity: eks.amazonaws.com/capacityType=SPOT."),

		deploymentCase(spec.CloudEKSAuto, "l40s", "L40S on EKS Auto Mode: eks.amazonaws.com/instance-gpu-name."),
		jobCase(spec.CloudEKSAuto, "h200", 8, "Eight H200 (p5e) on EKS Auto Mode."),
		spotCase(spec.CloudEKSAuto, "t4", "EKS Auto Mode Spot: karpenter.sh/capacity-type=spot."),

		deploymentCase(spec.CloudKarpenter, "a10g", "A10G via Karpenter: karpenter.k8s.aws/instance-gpu-name."),
		jobCase(spec.CloudKarpenter, "a100-40gb", 8, "a100 is both p4d (40GB) and p4de (80GB): instance-gpu-memory disambiguates."),
		spotCase(spec.CloudKarpenter, "l4", "Karpenter Spot: karpenter.sh/capacity-type=spot."),

		deploymentCase(spec.CloudGeneric, "h100-80gb", "GPU Operator cluster: GFD product names (SXM and PCIe) plus gpu.present."),
		jobCase(spec.CloudGeneric, "a100-80gb", 2, "Two A100 80GB on a GPU Operator cluster."),
		spotCase(spec.CloudGeneric, "t4", "Generic clusters have no spot label: a warning, and nothing is selected."),
	}
	return append(cases, featureCases()...)
}

func featureCases() []goldenCase {
	var cases []goldenCase
	add := func(cloud spec.Cloud, name, description string, w spec.Workload, opts Options) {
		cases = append(cases, goldenCase{cloud: string(cloud), name: name, description: description, workload: w, opts: opts})
	}

	w := goldenWorkload(spec.CloudGKE, "notebook", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "2g.10gb"})
	add(spec.CloudGKE, "mig-single-a100-40gb-2g10gb", "GKE MIG: gke-gpu-partition-size selector and toleration, resource nvidia.com/gpu.", w, Options{})

	w = goldenWorkload(spec.CloudGeneric, "notebook", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "2g.10gb"})
	add(spec.CloudGeneric, "mig-single-a100-40gb-2g10gb", "MIG single strategy: GFD product of the MIG form, resource nvidia.com/gpu.", w, Options{})

	w = goldenWorkload(spec.CloudGeneric, "notebook", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "1g.5gb", MIGStrategy: spec.MIGStrategyMixed})
	add(spec.CloudGeneric, "mig-mixed-a100-40gb-1g5gb", "MIG mixed strategy: resource nvidia.com/mig-1g.5gb, product selects the parent GPU.", w, Options{})

	w = goldenWorkload(spec.CloudEKS, "notebook", spec.KindDeployment, spec.GPU{Count: 2, Accelerator: "a100-80gb", Partition: "3g.40gb", MIGStrategy: spec.MIGStrategyMixed})
	add(spec.CloudEKS, "mig-mixed-a100-80gb-3g40gb", "Two 3g.40gb instances under the mixed strategy on EKS.", w, Options{})

	w = goldenWorkload(spec.CloudGKE, "chat", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingTimeSlicing, MaxSharedClients: 4})
	w.Replicas = rendertest.Ptr(int32(4))
	add(spec.CloudGKE, "sharing-l4-time-sharing", "GKE time-sharing: gke-gpu-sharing-strategy=time-sharing, 4 clients per GPU.", w, Options{})

	w = goldenWorkload(spec.CloudGKE, "chat", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingMPS, MaxSharedClients: 8})
	add(spec.CloudGKE, "sharing-t4-mps", "GKE MPS: sharing-strategy=mps and hostIPC for the MPS daemon.", w, Options{})

	w = goldenWorkload(spec.CloudGeneric, "chat", spec.KindDeployment, spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingTimeSlicing, MaxSharedClients: 4})
	add(spec.CloudGeneric, "sharing-t4-time-slicing", "Device plugin time-slicing: nvidia.com/gpu.shared (renameByDefault) and GFD sharing labels.", w, Options{})

	w = goldenWorkload(spec.CloudAKS, "llm-shard", spec.KindStatefulSet, spec.GPU{Count: 1, Accelerator: "a100-80gb"})
	w.Replicas = rendertest.Ptr(int32(2))
	w.ModelCache = &spec.ModelCache{Size: "200Gi", StorageClass: "managed-csi-premium"}
	add(spec.CloudAKS, "statefulset-model-cache", "StatefulSet: each replica gets its own model cache from a claim template, deleted with the StatefulSet.", w, Options{})

	w = goldenWorkload(spec.CloudKarpenter, "nightly-eval", spec.KindCronJob, spec.GPU{Count: 1, Accelerator: "l4"})
	w.CronJob = &spec.CronJobControls{Schedule: "0 3 * * *", TimeZone: "Europe/Berlin", ConcurrencyPolicy: "Forbid",
		SuccessfulJobsHistoryLimit: rendertest.Ptr(int32(3))}
	w.Job = &spec.JobControls{BackoffLimit: rendertest.Ptr(int32(1))}
	add(spec.CloudKarpenter, "cronjob-nightly", "CronJob: the Job of the job block on a schedule, in a time zone, never overlapping.", w, Options{})

	w = goldenWorkload(spec.CloudGKE, "inference", spec.KindDeployment, spec.GPU{Count: 1, Accelerators: []string{"h100-80gb", "a100-80gb", "l4"}})
	add(spec.CloudGKE, "preference-list", "Preference list: required In(all), preferred weights 100/80/60; size from the smallest default.", w, Options{})

	w = goldenWorkload(spec.CloudKarpenter, "inference", spec.KindDeployment, spec.GPU{Count: 1, Accelerators: []string{"a100-80gb", "h100-80gb", "l40s"}})
	add(spec.CloudKarpenter, "preference-list", "Karpenter preference list: one ORed term per model because a100 needs the memory label.", w, Options{})

	dra := spec.GPU{Count: 2, DRA: &spec.DRA{Selectors: []string{`device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"`}}}
	w = goldenWorkload(spec.CloudGeneric, "train", spec.KindJob, dra)
	add(spec.CloudGeneric, "dra-v1", "DRA with an unknown server version: resource.k8s.io/v1 assumed (exactly: wrapper), no nvidia.com/gpu limit.", w, Options{})
	add(spec.CloudGeneric, "dra-v1beta1", "DRA on Kubernetes 1.33: resource.k8s.io/v1beta1 with the flat request.", w, Options{ServerVersion: utilversion.MajorMinor(1, 33)})

	w = goldenWorkload(spec.CloudGKE, "train", spec.KindJob, spec.GPU{Count: 2, Accelerator: "h100-80gb", DRA: &spec.DRA{Same: spec.DRASamePCIeRoot}})
	add(spec.CloudGKE, "dra-derived", "DRA claim from intent: 2 H100s by the driver's product name, on one PCIe root.", w, Options{})

	w = goldenWorkload(spec.CloudGeneric, "train", spec.KindJob, spec.GPU{Count: 3, Accelerator: "h200", Partition: "3g.71gb", DRA: &spec.DRA{}})
	cases = append(cases, goldenCase{cloud: string(spec.CloudGeneric), name: "dra-partition", workload: w, expectWarnings: true,
		description: "DRA MIG claim from intent: class mig.nvidia.com, product and profile; either GFD product form on the node; H200 NVL is not selected."})

	w = goldenWorkload(spec.CloudEKS, "inference", spec.KindDeployment, spec.GPU{Count: 1, Accelerators: []string{"h200", "h100-80gb"}, DRA: &spec.DRA{MinMemory: "40Gi"}})
	add(spec.CloudEKS, "dra-preferences", "DRA preference list on 1.34: firstAvailable in order, each with its product and the memory minimum.", w,
		Options{ServerVersion: utilversion.MajorMinor(1, 34)})

	w = goldenWorkload(spec.CloudGKE, "llm", spec.KindDeployment, spec.GPU{Count: 2, Accelerator: "h100-80gb"})
	w.Namespace = "serving"
	w.Replicas = rendertest.Ptr(int32(2))
	w.Labels = map[string]string{"team": "ml-platform"}
	w.Annotations = map[string]string{"example.com/owner": "ml-platform"}
	w.PodLabels = map[string]string{"sidecar.istio.io/inject": "false"}
	w.PodAnnotations = map[string]string{"prometheus.io/scrape": "true"}
	w.Command = []string{"python3", "-m", "vllm.entrypoints.openai.api_server"}
	w.Args = []string{"--model=/models/llama", "--tensor-parallel-size=2"}
	w.Env = map[string]string{"HF_HOME": "/models/hf", "VLLM_LOGGING_LEVEL": "INFO"}
	w.Ports = []int32{8000, 9090}
	w.ServiceAccountName = "llm-serving"
	w.Size = catalog.SizeLarge
	w.ShmSize = "32Gi"
	w.ModelCache = &spec.ModelCache{Size: "500Gi", StorageClass: "standard-rwx", AccessMode: "ReadWriteMany", ReadOnly: true}
	w.StartupProbe = &spec.Probe{HTTPPath: "/health"}
	w.LivenessProbe = &spec.Probe{HTTPPath: "/health", PeriodSeconds: rendertest.Ptr(int32(30))}
	w.ReadinessProbe = &spec.Probe{TCPPort: 8000}
	w.IPCLock = true
	add(spec.CloudGKE, "full-featured", "shm + created RWX model cache + probes + IPC_LOCK + large preset x 2 GPUs + metadata.", w, Options{})

	w = goldenWorkload(spec.CloudGeneric, "finetune", spec.KindJob, spec.GPU{Count: 4, Accelerator: "a30"})
	w.CPU, w.Memory = "20", "96Gi"
	w.ModelCache = &spec.ModelCache{ClaimName: "shared-weights", MountPath: "/weights", ReadOnly: true}
	w.StartupProbe = &spec.Probe{Exec: []string{"test", "-f", "/tmp/started"}}
	add(spec.CloudGeneric, "existing-cache-explicit-resources", "Existing claim, explicit cpu/memory overriding the preset, exec probe.", w, Options{})

	w = goldenWorkload(spec.CloudEKS, "llama-pretrain", spec.KindDistributedJob, spec.GPU{Count: 8, Accelerator: "h100-80gb"})
	w.Command = []string{"torchrun", "train.py"}
	w.Distributed = &spec.DistributedControls{Nodes: rendertest.Ptr(int64(4))}
	add(spec.CloudEKS, "distributed-job-torchrun", "Four p5 nodes as one torchrun job: headless Service, Indexed Job, PET_* "+
		"variables (rank from the completion index, master pod 0 under the Service), /dev/shm half the memory, one "+
		"failed pod fails the Job.", w, Options{})

	return cases
}

func goldenPath(c goldenCase) string {
	return filepath.Join("testdata", "golden", c.cloud, c.name+".yaml")
}

// goldenText is what a reviewer reads: a header saying what the case shows,
// then the manifest exactly as Render returns it.
func goldenText(t *testing.T, c goldenCase) string {
	t.Helper()
	r, diags := ResolveAndRender(c.workload, c.opts)
	rendertest.RequireNoErrors(t, diags)
	if len(diags) > 0 && !c.expectWarnings {
		t.Fatalf("unexpected warnings:\n%s", rendertest.FormatDiags(diags))
	}
	var b strings.Builder
	b.WriteString("# Code generated by `go test ./internal/render/workload -run TestGolden -update`. DO NOT EDIT.\n")
	b.WriteString("# " + c.description + "\n")
	b.WriteString("# resource: " + valueOrNone(r.ResourceName) + "\n")
	if r.DRAAPIVersion != "" {
		b.WriteString("# dra api: " + r.DRAAPIVersion)
		if r.DRAAPIVersionAssumed {
			b.WriteString(" (assumed: server version unknown)")
		}
		b.WriteString("\n")
	}
	for _, d := range diags {
		b.WriteString("# " + d.Severity.String() + " at " + d.PathString() + ": " + d.Summary + "\n")
	}
	b.WriteString(r.Manifest)
	return b.String()
}

func valueOrNone(s string) string {
	if s == "" {
		return "(none: DRA claim)"
	}
	return s
}

func TestGolden(t *testing.T) {
	var cases []rendertest.GoldenCase
	for _, c := range goldenCases() {
		cases = append(cases, rendertest.GoldenCase{Name: c.cloud + "/" + c.name, Path: goldenPath(c),
			Text: func(t *testing.T) string { return goldenText(t, c) }})
	}
	rendertest.GoldenSuite(t, filepath.Join("testdata", "golden", "*", "*.yaml"), cases)
}

// TestGoldenCoversEveryKind: every registered kind has a reviewed
// rendering, so a kind added to the registry without one fails here.
func TestGoldenCoversEveryKind(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range goldenCases() {
		covered[c.workload.Kind] = true
	}
	for _, k := range kinds.All() {
		if !covered[k.Name] {
			t.Errorf("kind %q has no golden case in goldenCases()", k.Name)
		}
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	for _, c := range goldenCases() {
		first, _ := ResolveAndRender(c.workload, c.opts)
		for range 5 {
			again, _ := ResolveAndRender(c.workload, c.opts)
			if again.Manifest != first.Manifest {
				t.Fatalf("%s/%s renders differently on repeat", c.cloud, c.name)
			}
		}
	}
}
