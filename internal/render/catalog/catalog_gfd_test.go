package catalog

import (
	"bufio"
	"bytes"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The catalog against what real GPUs report: testdata/gfd holds the labels
// GPU Feature Discovery v0.20.0 wrote on a real H100 80GB HBM3 and a real
// H200 (one file per --mig-strategy), their `nvidia-smi mig -lgip` tables
// and nvidia-smi's name and memory (testdata/gfd/README.md says where and
// how they were read). Real facts beat hand-picked ones: where these tests
// fail, the catalog is wrong, not the files.

// gfdReading is one GPU's folder under testdata/gfd and the catalog entry
// it is a reading of.
type gfdReading struct {
	dir   string
	accel string
	// leftOut are the profiles of the GPU's `nvidia-smi mig -lgip` table
	// the catalog deliberately does not list: the "+me" variant (the same
	// slices plus the media engines), like every "+me", "-me" and "+gfx"
	// variant (docs/design/catalog.md#mig).
	leftOut []string
}

var gfdReadings = []gfdReading{
	{dir: "h100-80gb-hbm3", accel: "h100-80gb", leftOut: []string{"1g.10gb+me"}},
	{dir: "h200", accel: "h200", leftOut: []string{"1g.18gb+me"}},
}

// gfdStrategies are GFD's --mig-strategy values, one label file each.
var gfdStrategies = []string{"none", "single", "mixed"}

const (
	gfdProductLabel     = "nvidia.com/gpu.product"
	gfdMemoryLabel      = "nvidia.com/gpu.memory"
	gfdMIGStrategyLabel = "nvidia.com/mig.strategy"
	gfdMIGCapableLabel  = "nvidia.com/mig.capable"
)

func (r gfdReading) path(name string) string { return filepath.Join("testdata", "gfd", r.dir, name) }

func (r gfdReading) entry(t *testing.T) Accelerator {
	t.Helper()
	a, ok := LookupAccelerator(r.accel)
	if !ok {
		t.Fatalf("%s: no catalog entry %q", r.dir, r.accel)
	}
	return a
}

// readGFDLabels parses a GFD output file: one label=value per line.
func readGFDLabels(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || k == "" {
			t.Fatalf("%s: %q is not label=value", path, sc.Text())
		}
		if _, dup := labels[k]; dup {
			t.Fatalf("%s: %s twice", path, k)
		}
		labels[k] = v
	}
	if len(labels) == 0 {
		t.Fatalf("%s: no labels", path)
	}
	return labels
}

// nvidiaSMIQuery is the one GPU row of query.csv.
type nvidiaSMIQuery struct {
	name      string
	memoryMiB int64
}

func readQuery(t *testing.T, path string) nvidiaSMIQuery {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "name, memory.total [MiB],") {
		t.Fatalf("%s: want the header and one GPU, got %q", path, lines)
	}
	fields := strings.Split(lines[1], ", ")
	mem, err := strconv.ParseInt(strings.TrimSuffix(fields[1], " MiB"), 10, 64)
	if err != nil {
		t.Fatalf("%s: memory.total %q: %v", path, fields[1], err)
	}
	return nvidiaSMIQuery{name: fields[0], memoryMiB: mem}
}

// lgipProfile is one row of `nvidia-smi mig -lgip`.
type lgipProfile struct {
	name      string
	instances int     // "Instances Free/Total": the total on one GPU
	memoryGiB float64 // "Memory GiB"
}

// lgipRow matches the first line of a profile:
// "|   0  MIG 1g.10gb         19     7/7        9.75       No  ...".
var lgipRow = regexp.MustCompile(`^\|\s+\d+\s+MIG\s+(\S+)\s+\d+\s+\d+/(\d+)\s+([0-9.]+)\s`)

func readLGIP(t *testing.T, path string) []lgipProfile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []lgipProfile
	for line := range strings.Lines(string(raw)) {
		if !strings.Contains(line, " MIG ") {
			continue
		}
		m := lgipRow.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s: cannot read the profile row %q", path, line)
		}
		n, _ := strconv.Atoi(m[2])
		mem, _ := strconv.ParseFloat(m[3], 64)
		out = append(out, lgipProfile{name: m[1], instances: n, memoryGiB: mem})
	}
	if len(out) == 0 {
		t.Fatalf("%s: no profiles", path)
	}
	return out
}

// TestCatalogGFDProducts: the nvidia.com/gpu.product GFD wrote is one of
// the catalog's GFDProducts for the model, whatever the MIG strategy (with
// MIG disabled, "single" keeps the whole-GPU form, no -MIG-<profile>); it
// is nvidia-smi's name with spaces as dashes, as GFDProducts' comment says;
// the three files differ only in nvidia.com/mig.strategy; and GFD's
// mig.capable agrees with the catalog's MIG table.
func TestCatalogGFDProducts(t *testing.T) {
	for _, r := range gfdReadings {
		t.Run(r.dir, func(t *testing.T) {
			a := r.entry(t)
			none := readGFDLabels(t, r.path("gfd-none.txt"))
			for _, strategy := range gfdStrategies {
				labels := readGFDLabels(t, r.path("gfd-"+strategy+".txt"))
				product := labels[gfdProductLabel]
				if !slices.Contains(a.GFDProducts, product) {
					t.Errorf("--mig-strategy=%s: GFD wrote %s=%s; the catalog's %s lists %q", strategy, gfdProductLabel, product, a.Name, a.GFDProducts)
				}
				want := maps.Clone(none)
				if strategy != "none" {
					want[gfdMIGStrategyLabel] = strategy
				}
				if !maps.Equal(labels, want) {
					t.Errorf("--mig-strategy=%s: the labels differ from --mig-strategy=none by more than %s=%s", strategy, gfdMIGStrategyLabel, strategy)
				}
			}
			if q := readQuery(t, r.path("query.csv")); strings.ReplaceAll(q.name, " ", "-") != none[gfdProductLabel] {
				t.Errorf("nvidia-smi names the GPU %q, GFD wrote %q: not the name with spaces as dashes", q.name, none[gfdProductLabel])
			}
			if got, want := none[gfdMIGCapableLabel], strconv.FormatBool(a.OffersMIG()); got != want {
				t.Errorf("GFD wrote %s=%s; the catalog's MIG table says %s", gfdMIGCapableLabel, got, want)
			}
		})
	}
}

// gfdMemoryTolerance: the catalog's MemoryMiB is the nominal memory (80 GB
// and 141 GB, counted as GiB: 81920 and 144384 MiB), what the whole-GPU MIG
// profile's name says. NVML reports a little less, the memory the driver
// leaves to applications: 81559 MiB (0.44% less) on the H100 and
// 143771 MiB (0.42% less) on the H200. The catalog may be above NVML by at
// most 1%, never below it.
const gfdMemoryTolerance = 0.01

// TestCatalogMemoryAgainstNVML: GFD's nvidia.com/gpu.memory is nvidia-smi's
// memory.total in MiB; the catalog's nominal memory is within
// gfdMemoryTolerance above it and is the size the whole-GPU MIG profile of
// the real table is named after.
func TestCatalogMemoryAgainstNVML(t *testing.T) {
	for _, r := range gfdReadings {
		t.Run(r.dir, func(t *testing.T) {
			a := r.entry(t)
			labels := readGFDLabels(t, r.path("gfd-none.txt"))
			q := readQuery(t, r.path("query.csv"))
			if got := labels[gfdMemoryLabel]; got != strconv.FormatInt(q.memoryMiB, 10) {
				t.Errorf("GFD wrote %s=%s; nvidia-smi says %d MiB", gfdMemoryLabel, got, q.memoryMiB)
			}
			if over := float64(a.MemoryMiB-q.memoryMiB) / float64(a.MemoryMiB); over < 0 || over > gfdMemoryTolerance {
				t.Errorf("catalog MemoryMiB %d, NVML reports %d MiB: want the catalog 0 to %.0f%% above, it is %.2f%%",
					a.MemoryMiB, q.memoryMiB, 100*gfdMemoryTolerance, 100*over)
			}
			profiles := readLGIP(t, r.path("nvidia-smi-mig-lgip.txt"))
			whole := profiles[len(profiles)-1].name
			if want := "7g." + strconv.FormatInt(a.MemoryMiB/1024, 10) + "gb"; whole != want || a.MemoryMiB%1024 != 0 {
				t.Errorf("the real whole-GPU profile is %s; the catalog's MemoryMiB %d names %s", whole, a.MemoryMiB, want)
			}
		})
	}
}

// TestCatalogMIGProfilesAgainstNvidiaSMI: the catalog's MIG profiles are
// exactly the real `nvidia-smi mig -lgip` table without the variants it
// leaves out (gfdReading.leftOut): the same names, the same instances per
// GPU (the table's Free/Total on an empty GPU), and memory slices that are
// the table's memory in eighths of the whole-GPU profile's, rounded (the
// table gives what an instance can use, a little under its slices).
func TestCatalogMIGProfilesAgainstNvidiaSMI(t *testing.T) {
	for _, r := range gfdReadings {
		t.Run(r.dir, func(t *testing.T) {
			a := r.entry(t)
			table := readLGIP(t, r.path("nvidia-smi-mig-lgip.txt"))
			listed := map[string]lgipProfile{}
			var leftOut []string
			for _, p := range table {
				if strings.ContainsAny(p.name, "+-") {
					leftOut = append(leftOut, p.name)
					continue
				}
				listed[p.name] = p
			}
			if !slices.Equal(leftOut, r.leftOut) {
				t.Errorf("the table's variants are %q; the test expects the catalog to leave out %q", leftOut, r.leftOut)
			}
			catalogNames := a.MIGProfileNames()
			slices.Sort(catalogNames)
			if realNames := slices.Sorted(maps.Keys(listed)); !slices.Equal(catalogNames, realNames) {
				t.Fatalf("catalog %s profiles %q; the real table has %q (and the variants %q)", a.Name, catalogNames, realNames, leftOut)
			}
			whole, ok := a.LookupMIGProfile(table[len(table)-1].name)
			if !ok || whole.InstancesPerGPU != 1 {
				t.Fatalf("the last row of the table, %s, is not the catalog's whole-GPU profile", table[len(table)-1].name)
			}
			slice := table[len(table)-1].memoryGiB / float64(whole.MemorySlices)
			for _, p := range a.MIGProfiles {
				got := listed[p.Name]
				if p.InstancesPerGPU != got.instances {
					t.Errorf("%s: catalog %d instances per GPU, nvidia-smi %d", p.Name, p.InstancesPerGPU, got.instances)
				}
				if n := int(math.Round(got.memoryGiB / slice)); p.MemorySlices != n {
					t.Errorf("%s: catalog %d memory slices, nvidia-smi's %.2f GiB is %d of %d", p.Name, p.MemorySlices, got.memoryGiB, n, whole.MemorySlices)
				}
			}
		})
	}
}

// TestCatalogDriverProductsAgainstNvidiaSMI: the driver product the
// catalog records for a real GPU is exactly nvidia-smi's name and memory
// for it (NVML's, which the DRA driver publishes as productName and the
// memory capacity).
func TestCatalogDriverProductsAgainstNvidiaSMI(t *testing.T) {
	for _, r := range gfdReadings {
		t.Run(r.dir, func(t *testing.T) {
			a := r.entry(t)
			q := readQuery(t, r.path("query.csv"))
			want := DriverProduct{Name: q.name, MemoryMiB: q.memoryMiB}
			if !slices.Contains(a.DriverProducts, want) {
				t.Errorf("nvidia-smi reports %+v; the catalog's %s records %+v", want, a.Name, a.DriverProducts)
			}
		})
	}
}
