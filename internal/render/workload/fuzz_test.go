package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// fuzzInput is FuzzRender's argument list as a struct, so seeds are readable
// and the corpus files can be regenerated.
type fuzzInput struct {
	Name, Namespace, Kind, Cloud, Image         string
	Replicas                                    int32 // < 0: unset
	Count, Requests                             int64 // Requests 0: unset
	Accelerator, Accelerators                   string
	Partition, MIGStrategy, Sharing             string
	MaxShared                                   int64
	DRA                                         bool
	DRASelector                                 string
	Size, CPU, Memory, Shm                      string
	CacheClaim, CacheSize, CacheMode, ProbePath string
	ProbePort                                   int32
	Spot, IPCLock                               bool
	ServerMinor                                 int   // 0: unknown
	Parallelism                                 int32 // 0: unset
	EnvKey                                      string
}

func (in fuzzInput) workload() (spec.Workload, Options) {
	w := spec.Workload{
		Name: in.Name, Namespace: in.Namespace, Kind: in.Kind, Cloud: in.Cloud, Image: in.Image,
		GPU: spec.GPU{
			Count: in.Count, Accelerator: in.Accelerator, Partition: in.Partition,
			MIGStrategy: in.MIGStrategy, Sharing: in.Sharing, MaxSharedClients: in.MaxShared,
		},
		Size: in.Size, CPU: in.CPU, Memory: in.Memory, ShmSize: in.Shm, Spot: in.Spot, IPCLock: in.IPCLock,
	}
	if in.Replicas >= 0 {
		w.Replicas = rendertest.Ptr(in.Replicas)
	}
	if in.Requests != 0 {
		w.GPU.Requests = rendertest.Ptr(in.Requests)
	}
	if in.Accelerators != "" {
		w.GPU.Accelerators = strings.Split(in.Accelerators, ",")
	}
	if in.DRA {
		w.GPU.DRA = &spec.DRA{}
		if in.DRASelector != "" {
			w.GPU.DRA.Selectors = []string{in.DRASelector}
		}
	}
	if in.CacheClaim != "" || in.CacheSize != "" || in.CacheMode != "" {
		w.ModelCache = &spec.ModelCache{ClaimName: in.CacheClaim, Size: in.CacheSize, AccessMode: in.CacheMode}
	}
	if in.ProbePath != "" {
		w.ReadinessProbe = &spec.Probe{HTTPPath: in.ProbePath, Port: in.ProbePort}
		w.Ports = []int32{in.ProbePort}
	}
	if in.Parallelism != 0 {
		w.Job = &spec.JobControls{Parallelism: rendertest.Ptr(in.Parallelism)}
	}
	if in.EnvKey != "" {
		w.Env = map[string]string{in.EnvKey: "1"}
	}
	var opts Options
	if in.ServerMinor != 0 {
		opts.ServerVersion = utilversion.MajorMinor(1, uint(in.ServerMinor))
	}
	return w, opts
}

var fuzzSeeds = []fuzzInput{
	{Name: "llm", Kind: "deployment", Cloud: "gke", Image: "img", Replicas: 1, Count: 1, Accelerator: "l4", Spot: true},
	{Name: "train", Kind: "job", Cloud: "karpenter", Image: "img", Replicas: -1, Count: 8, Accelerator: "a100-40gb", Shm: "16Gi", Parallelism: 2},
	{Name: "nb", Kind: "deployment", Cloud: "gke", Image: "img", Replicas: -1, Count: 1, Accelerator: "a100-40gb", Partition: "2g.10gb"},
	{Name: "nb", Kind: "deployment", Cloud: "generic", Image: "img", Replicas: -1, Count: 2, Requests: 2, Accelerator: "a100-40gb", Partition: "1g.5gb", MIGStrategy: "mixed"},
	{Name: "chat", Kind: "deployment", Cloud: "generic", Image: "img", Replicas: 4, Count: 1, Accelerator: "t4", Sharing: "time-slicing", MaxShared: 4},
	{Name: "pref", Kind: "deployment", Cloud: "eks-auto", Image: "img", Replicas: -1, Count: 1, Accelerators: "a100-80gb,h100-80gb,l40s", Size: "medium"},
	{Name: "dra", Kind: "job", Cloud: "generic", Image: "img", Replicas: -1, Count: 2, DRA: true, DRASelector: "device.driver == \"gpu.nvidia.com\"", ServerMinor: 33},
	{Name: "full", Kind: "deployment", Cloud: "aks", Image: "img", Replicas: 2, Count: 1, Accelerator: "t4", CPU: "2", Memory: "8Gi", Shm: "16Gi", CacheSize: "10Gi", CacheMode: "ReadWriteOncePod", ProbePath: "/h", ProbePort: 8080, IPCLock: true, EnvKey: "CUDA_VISIBLE_DEVICES"},
	{Name: "Bad_Name", Kind: "statefulset", Cloud: "gcp", Image: "a b", Replicas: -3, Count: -1, Requests: 5, Accelerator: "k80", Partition: "9g.1tb", MIGStrategy: "none", Sharing: "vgpu", MaxShared: 1, CPU: "lots", Memory: "-1", Shm: "x", CacheClaim: "c", CacheSize: "1Gi", ProbePath: "rel", ProbePort: 70000, ServerMinor: 20, EnvKey: "1BAD"},
	{},
}

func (in fuzzInput) corpusFile() string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, s := range []string{in.Name, in.Namespace, in.Kind, in.Cloud, in.Image} {
		b.WriteString("string(" + strconv.Quote(s) + ")\n")
	}
	fmt.Fprintf(&b, "int32(%d)\nint64(%d)\nint64(%d)\n", in.Replicas, in.Count, in.Requests)
	for _, s := range []string{in.Accelerator, in.Accelerators, in.Partition, in.MIGStrategy, in.Sharing} {
		b.WriteString("string(" + strconv.Quote(s) + ")\n")
	}
	fmt.Fprintf(&b, "int64(%d)\nbool(%t)\nstring(%s)\n", in.MaxShared, in.DRA, strconv.Quote(in.DRASelector))
	for _, s := range []string{in.Size, in.CPU, in.Memory, in.Shm, in.CacheClaim, in.CacheSize, in.CacheMode, in.ProbePath} {
		b.WriteString("string(" + strconv.Quote(s) + ")\n")
	}
	fmt.Fprintf(&b, "int32(%d)\nbool(%t)\nbool(%t)\nint(%d)\nint32(%d)\nstring(%s)\n",
		in.ProbePort, in.Spot, in.IPCLock, in.ServerMinor, in.Parallelism, strconv.Quote(in.EnvKey))
	return b.String()
}

func TestWriteFuzzSeeds(t *testing.T) {
	if !*rendertest.WriteFuzzSeeds {
		t.Skip("run with -write-fuzz-seeds to regenerate testdata/fuzz/FuzzRender")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRender")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, seed := range fuzzSeeds {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(seed.corpusFile()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzRender: no input panics, errors and results are exclusive, and every
// rendered GPU container requests exactly its GPU limit.
func FuzzRender(f *testing.F) {
	f.Fuzz(func(t *testing.T, name, namespace, kind, cloud, image string, replicas int32, count, requests int64,
		accelerator, accelerators, partition, migStrategy, sharing string, maxShared int64, dra bool, draSelector string,
		size, cpu, memory, shm, cacheClaim, cacheSize, cacheMode, probePath string, probePort int32,
		spot, ipcLock bool, serverMinor int, parallelism int32, envKey string) {
		in := fuzzInput{
			Name: name, Namespace: namespace, Kind: kind, Cloud: cloud, Image: image, Replicas: replicas,
			Count: count, Requests: requests, Accelerator: accelerator, Accelerators: accelerators,
			Partition: partition, MIGStrategy: migStrategy, Sharing: sharing, MaxShared: maxShared, DRA: dra,
			DRASelector: draSelector, Size: size, CPU: cpu, Memory: memory, Shm: shm, CacheClaim: cacheClaim,
			CacheSize: cacheSize, CacheMode: cacheMode, ProbePath: probePath, ProbePort: probePort, Spot: spot,
			IPCLock: ipcLock, ServerMinor: serverMinor, Parallelism: parallelism, EnvKey: envKey,
		}
		w, opts := in.workload()
		_ = Validate(w)
		r, diags := ResolveAndRender(w, opts)
		if diags.HasError() != (r == nil) {
			t.Fatalf("errors and result must be exclusive: result %v, diagnostics:\n%s", r != nil, rendertest.FormatDiags(diags))
		}
		if r == nil {
			return
		}
		checkGPUResources(t, r, w)
		// Terraform strings are UTF-8; JSON (hence the manifest) replaces
		// invalid bytes, so exact round-trips only hold for valid input.
		if rendertest.AllUTF8(name, namespace, image, draSelector, probePath, cacheClaim, envKey) {
			if err := reparseManifest(r); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func checkGPUResources(t *testing.T, r *Rendered, w spec.Workload) {
	t.Helper()
	c := gpuContainer(r)
	for name, limit := range c.Resources.Limits {
		if !strings.HasPrefix(string(name), "nvidia.com/") {
			continue
		}
		request, ok := c.Resources.Requests[name]
		if !ok || !request.Equal(limit) {
			t.Fatalf("%s: request %v must equal limit %v", name, request, limit)
		}
	}
	for name := range c.Resources.Requests {
		if _, ok := c.Resources.Limits[name]; strings.HasPrefix(string(name), "nvidia.com/") && !ok {
			t.Fatalf("%s requested without a limit", name)
		}
	}
	if w.GPU.DRA != nil {
		if r.ResourceName != "" || len(c.Resources.Claims) != 1 {
			t.Fatalf("DRA must use a claim only: resource %q claims %v", r.ResourceName, c.Resources.Claims)
		}
		return
	}
	limit := c.Resources.Limits[corev1.ResourceName(r.ResourceName)]
	if limit.Value() != w.GPU.Count {
		t.Fatalf("%s limit %v, want gpu.count %d", r.ResourceName, limit, w.GPU.Count)
	}
}
