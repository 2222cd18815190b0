package values

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// valuesFuzzInput is FuzzGenerateValues' argument list as a struct, so the
// committed seeds are readable and can be regenerated.
type valuesFuzzInput struct {
	Target, Cloud, Accelerator string
	Count                      int64
	Key, Sharing, Partition    string
	FlyteVersion               int64
	PoolName, PoolAccelerator  string
	PoolReplicas               int64
	Spot, Manifest, DRA        bool
	EnvKey, EnvValue, CPU      string
}

func (f valuesFuzzInput) input() Input {
	g := spec.GPU{Count: f.Count, Accelerator: f.Accelerator, Sharing: f.Sharing, Partition: f.Partition}
	if f.DRA {
		g.DRA = &spec.DRA{}
	}
	env := map[string]string{}
	if f.EnvKey != "" {
		env[f.EnvKey] = f.EnvValue
	}
	var pools []spec.PoolPolicy
	if f.PoolName != "" {
		pools = []spec.PoolPolicy{{Name: f.PoolName, Cloud: f.Cloud, Accelerator: f.PoolAccelerator, GPUsPerNode: 1,
			Sharing: f.Sharing, Replicas: f.PoolReplicas, Partition: f.Partition, Spot: f.Spot}}
	}
	in := Input{Cloud: f.Cloud, Blocks: map[string]any{}}
	fill, ok := fuzzBlocks[f.Target]
	if !ok {
		fill = fuzzBlocks[TargetNumaflow]
	}
	fill(f, &in, g, env, pools)
	return in
}

// fuzzBlocks sets, per target, the block the fuzz input configures; an
// unknown target gets the numaflow block.
var fuzzBlocks = map[string]func(f valuesFuzzInput, in *Input, g spec.GPU, env map[string]string, pools []spec.PoolPolicy){
	TargetFiftyOne: func(f valuesFuzzInput, in *Input, g spec.GPU, env map[string]string, pools []spec.PoolPolicy) {
		d := fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: f.Key, GPU: &g, Spot: f.Spot, Env: env, CPU: f.CPU}}
		if len(pools) > 0 {
			d.NodePool = &pools[0]
		}
		in.Blocks[fiftyone.Block] = &fiftyone.Values{
			Deployments:  []fiftyone.FiftyOneDeployment{d, {Runner: fiftyone.Runner{Key: f.Key + "Cpu", CPU: f.CPU}}},
			JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: f.Key, GPU: &g, Env: env}}}}
	},
	TargetFlyteCore:   fuzzFlyte,
	TargetFlyteBinary: fuzzFlyte,
	TargetGPUOperator: func(f valuesFuzzInput, in *Input, _ spec.GPU, _ map[string]string, pools []spec.PoolPolicy) {
		in.Blocks[nvidia.BlockGPUOperator] = &nvidia.GPUOperatorValues{NodePools: pools, MIGStrategy: f.Key,
			MIGLayouts: []nvidia.MIGLayout{{Name: f.Key, Accelerator: f.Accelerator, Devices: map[string]int64{f.Partition: f.Count}}}}
	},
	TargetNvidiaDevicePlugin: func(f valuesFuzzInput, in *Input, _ spec.GPU, _ map[string]string, pools []spec.PoolPolicy) {
		in.Blocks[nvidia.BlockDevicePlugin] = &nvidia.DevicePluginValues{NodePools: pools, MIGStrategy: f.Key}
	},
	TargetNumaflow: func(f valuesFuzzInput, in *Input, g spec.GPU, env map[string]string, _ []spec.PoolPolicy) {
		in.Blocks[numaflow.Block] = &numaflow.Values{Name: f.Key, Image: f.EnvValue, GPU: g, Spot: f.Spot, Env: env, Manifest: f.Manifest, CPU: f.CPU}
	},
}

func fuzzFlyte(f valuesFuzzInput, in *Input, _ spec.GPU, env map[string]string, _ []spec.PoolPolicy) {
	in.Blocks[flyte.Block] = &flyte.Values{FlyteVersion: f.FlyteVersion, Accelerators: strings.Split(f.Accelerator, ","), Sharing: f.Sharing,
		Interruptible: f.Spot, DefaultEnvVars: env, DefaultNodeSelector: env}
}

var valuesFuzzSeeds = []valuesFuzzInput{
	{Target: TargetFiftyOne, Cloud: "gke-autopilot", Accelerator: "l4", Count: 1, Key: "gpuL4", Spot: true, EnvKey: "HF_HOME", EnvValue: "/cache", CPU: "4"},
	{Target: TargetFiftyOne, Cloud: "karpenter", Count: 1, Key: "gpuA100x2", PoolName: "shared", PoolAccelerator: "l4", Sharing: "time-slicing", PoolReplicas: 4},
	{Target: TargetFlyteCore, Cloud: "gke", Accelerator: "a100-40gb,t4", Spot: true, EnvKey: "TOKEN", EnvValue: "{{ x }}"},
	{Target: TargetFlyteBinary, Cloud: "eks-auto", Accelerator: "l40s,h100-80gb", FlyteVersion: 2, Sharing: "mps"},
	{Target: TargetGPUOperator, Cloud: "generic", Accelerator: "a100-40gb", Count: 2, Key: "mixed", Partition: "3g.20gb",
		PoolName: "mig", PoolAccelerator: "a100-40gb"},
	{Target: TargetNvidiaDevicePlugin, Cloud: "aks", Key: "none", PoolName: "t4", PoolAccelerator: "t4", Sharing: "time-slicing", PoolReplicas: 2, Spot: true},
	{Target: TargetNumaflow, Cloud: "generic", Count: 2, Key: "embed", DRA: true, Manifest: true, EnvValue: "img:1"},
	{Target: TargetNumaflow, Cloud: "gke", Accelerator: "t4", Count: 1, Sharing: "mps", Manifest: true, Key: "m", EnvValue: "i"},
	{Target: "bogus", Cloud: "gcp", Accelerator: "k80", Count: -3, Key: "Bad Key!", Sharing: "vgpu", Partition: "9g", FlyteVersion: 7,
		PoolName: "UPPER", PoolAccelerator: "x", PoolReplicas: -1, EnvKey: "1BAD", EnvValue: "\xff", CPU: "lots"},
	{},
}

func (f valuesFuzzInput) corpusFile() string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	str := func(s string) { b.WriteString("string(" + strconv.Quote(s) + ")\n") }
	str(f.Target)
	str(f.Cloud)
	str(f.Accelerator)
	fmt.Fprintf(&b, "int64(%d)\n", f.Count)
	str(f.Key)
	str(f.Sharing)
	str(f.Partition)
	fmt.Fprintf(&b, "int64(%d)\n", f.FlyteVersion)
	str(f.PoolName)
	str(f.PoolAccelerator)
	fmt.Fprintf(&b, "int64(%d)\nbool(%t)\nbool(%t)\nbool(%t)\n", f.PoolReplicas, f.Spot, f.Manifest, f.DRA)
	str(f.EnvKey)
	str(f.EnvValue)
	str(f.CPU)
	return b.String()
}

func TestWriteValuesFuzzSeeds(t *testing.T) {
	if !*rendertest.WriteFuzzSeeds {
		t.Skip("run with -write-fuzz-seeds to regenerate testdata/fuzz/FuzzGenerateValues")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzGenerateValues")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, seed := range valuesFuzzSeeds {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(seed.corpusFile()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzGenerateValues: no input panics; errors and values are exclusive;
// values always encode and always yield pod fragments whose GPU requests
// equal integer limits; Flyte values never hold "{{".
func FuzzGenerateValues(f *testing.F) {
	f.Fuzz(func(t *testing.T, target, cloud, accelerator string, count int64, key, sharing, partition string,
		flyteVersion int64, poolName, poolAccelerator string, poolReplicas int64, spot, manifest, dra bool,
		envKey, envValue, cpu string) {
		fi := valuesFuzzInput{Target: target, Cloud: cloud, Accelerator: accelerator, Count: count, Key: key, Sharing: sharing,
			Partition: partition, FlyteVersion: flyteVersion, PoolName: poolName, PoolAccelerator: poolAccelerator,
			PoolReplicas: poolReplicas, Spot: spot, Manifest: manifest, DRA: dra, EnvKey: envKey, EnvValue: envValue, CPU: cpu}
		in := fi.input()
		_ = ValidateInput(target, in)
		values, diags := Generate(target, in)
		if diags.HasError() != (values == nil) {
			t.Fatalf("errors and values must be exclusive: values %v, diagnostics:\n%s", values != nil, rendertest.FormatDiags(diags))
		}
		if values == nil {
			return
		}
		if _, err := chartkit.CanonicalYAML(values); err != nil && utf8.ValidString(envValue+envKey+key) {
			t.Fatalf("values do not encode: %v", err)
		}
		if (target == TargetFlyteCore || target == TargetFlyteBinary) && flyte.ContainsTemplate(values) {
			t.Fatal("Flyte values contain {{")
		}
		pods, err := PodFragments(target, values)
		if err != nil {
			t.Fatalf("pod fragments: %v", err)
		}
		for _, pod := range pods {
			for _, c := range pod.Containers {
				for name, limit := range c.Resources.Limits {
					if !chartkit.IsExtendedResource(string(name)) {
						continue
					}
					if req, ok := c.Resources.Requests[name]; !ok || !req.Equal(limit) || limit.MilliValue()%1000 != 0 {
						t.Fatalf("%s: request %v, limit %v", name, req, limit)
					}
				}
			}
		}
	})
}

func BenchmarkGenerateValues(b *testing.B) {
	for _, target := range TargetNames() {
		c := gridCase(target, spec.CloudAKS)
		b.Run(target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if values, diags := Generate(c.target, c.input); values == nil {
					b.Fatal(rendertest.FormatDiags(diags))
				}
			}
		})
	}
	b.Run("canonical-yaml", func(b *testing.B) {
		c := gridCase(TargetGPUOperator, spec.CloudAKS)
		values, _ := Generate(c.target, c.input)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chartkit.CanonicalYAML(values); err != nil {
				b.Fatal(err)
			}
		}
	})
}
