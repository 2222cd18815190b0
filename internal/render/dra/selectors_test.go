package dra

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

const (
	attrs = `device.attributes["gpu.nvidia.com"]`
	caps  = `device.capacity["gpu.nvidia.com"]`
)

// TestCheckSelectors: each finding is an error on the selector's own
// path, whose summary says what kind of mistake it is and whose detail
// matches want (what was wrong and what is allowed).
func TestCheckSelectors(t *testing.T) {
	h100, a100 := model(t, "h100-80gb"), model(t, "a100-40gb")
	whole := Target{Class: ClassGPU, Accelerators: []*catalog.Accelerator{h100}}
	mig := Target{Class: ClassMIG, Accelerators: []*catalog.Accelerator{h100}, Partition: profile(t, h100, "3g.40gb")}
	for name, c := range map[string]struct {
		selector string
		target   Target
		summary  string // "" for no finding
		want     string
	}{
		"product of the accelerator":     {attrs + `.productName == "NVIDIA H100 80GB HBM3"`, whole, "", ""},
		"regular expression on product":  {attrs + `.productName.lowerAscii().matches("^.*h100.*$")`, whole, "", ""},
		"product of another model":       {attrs + `.productName == "NVIDIA A100-SXM4-40GB"`, whole, "Selector contradicts the GPU request", `false on every device .* NVIDIA H100 80GB \("h100-80gb"\).*productName = "NVIDIA H100 80GB HBM3", memory = 81559Mi.*Allowed: a selector those devices pass`},
		"regular expression on another":  {attrs + `.productName.lowerAscii().matches("a100")`, whole, "Selector contradicts the GPU request", `H100`},
		"memory the real GPU has":        {caps + `.memory.compareTo(quantity("79Gi")) >= 0`, whole, "", ""},
		"memory the real GPU lacks":      {caps + `.memory.compareTo(quantity("80Gi")) >= 0`, whole, "Selector contradicts the GPU request", `memory = 81559Mi`},
		"whole GPU type on a MIG claim":  {attrs + `.type == "gpu"`, mig, "Selector contradicts the GPU request", `type = "mig"`},
		"another profile":                {attrs + `.profile == "1g.10gb"`, mig, "Selector contradicts the GPU request", `profile = "3g.40gb"`},
		"the profile":                    {attrs + `.profile == "3g.40gb"`, mig, "", ""},
		"unknown attribute decides":      {attrs + `.productName == "x" || ` + attrs + `.uuid == "GPU-1"`, whole, "", ""},
		"false whatever the unknown":     {attrs + `.productName == "x" && ` + attrs + `.uuid == "GPU-1"`, whole, "", ""},
		"has of an unrecorded capacity":  {`has(` + caps + `.memory)`, mig, "", ""},
		"membership test is not read":    {`"x" in ` + attrs, whole, "", ""},
		"index was removed":              {attrs + `.index == 0`, whole, "Selector names an attribute the driver does not publish", `"index" \(gpu.nvidia.com attribute\) was removed in driver v25.8.0.*Allowed attribute names on gpu devices: "type", "uuid", "productName"`},
		"minor was removed":              {attrs + `["minor"] == 0`, whole, "Selector names an attribute the driver does not publish", `"minor".*v25.8.0`},
		"pcieBusID was renamed":          {`has(` + attrs + `.pcieBusID)`, whole, "Selector names an attribute the driver does not publish", `renamed in driver v25.12.0.*resource.kubernetes.io"\].pciBusID`},
		"MIG attribute on whole GPUs":    {attrs + `.profile == "3g.40gb"`, whole, "Selector names an attribute the driver does not publish", `"profile" .* is published only on mig devices, and the claim asks for gpu devices`},
		"made-up attribute":              {attrs + `.vram > 4`, whole, "Selector names an attribute the driver does not publish", `"vram" .* is not published by NVIDIA's DRA driver`},
		"made-up capacity":               {caps + `.vram.compareTo(quantity("1Gi")) > 0`, whole, "Selector names an attribute the driver does not publish", `"vram" \(gpu.nvidia.com capacity\)`},
		"memory slice on MIG":            {caps + `.memorySlice3.compareTo(quantity("1")) == 0`, mig, "", ""},
		"standard attribute":             {`device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:64"`, whole, "", ""},
		"made-up standard attribute":     {`device.attributes["resource.kubernetes.io"].socket == 1`, whole, "Selector names an attribute the driver does not publish", `Allowed attribute names on gpu devices: "pciBusID", "pcieRoot", "numaNode"`},
		"another domain is not checked":  {`device.attributes["example.com"].anything == 1`, whole, "", ""},
		"VFIO's numa on whole GPUs":      {attrs + `.numa == 0`, whole, "Selector names an attribute the driver does not publish", `"numa" .* was removed in driver v0.5.0 \(v25.12.0 to v0.4.x publish it on vfio devices only\): use .*numaNode`},
		"syntax error":                   {attrs + `.productName ==`, whole, "Invalid selector", `(?s)compilation failed.*Allowed: a CEL expression that evaluates to a bool`},
		"not a bool":                     {attrs + `.productName`, whole, "Selector fails on the requested devices", `could not be converted to bool.*Allowed: an expression that evaluates to a bool`},
		"a constant that is no bool":     {`"x"`, whole, "Invalid selector", `must evaluate to bool`},
		"unknown variable":               {`gpu.productName == "x"`, whole, "Invalid selector", `undeclared reference`},
		"type error on every device":     {attrs + `.productName > 5`, whole, "Selector fails on the requested devices", `CEL runtime error.*Allowed: .*comparing each attribute with a value of its type`},
		"too long":                       {`"` + strings.Repeat("x", 10*1024) + `" == ""`, whole, "Selector too long", `refuses more than 10240`},
		"any GPU: type decides":          {attrs + `.type == "mig"`, Target{Class: ClassGPU}, "Selector contradicts the GPU request", `the requested class`},
		"another class: nothing assumed": {`device.driver == "gpu.kwok.x-k8s"`, Target{Class: "gpu.example.com", Accelerators: []*catalog.Accelerator{h100}}, "", ""},
		"another class: names still checked": {attrs + `.minor == 0`, Target{Class: "gpu.example.com"}, "Selector names an attribute the driver does not publish",
			`Allowed attribute names on its devices: .*"profile"`},
		"preference list: one model passes": {attrs + `.productName == "NVIDIA H200"`, Target{Class: ClassGPU, Accelerators: []*catalog.Accelerator{model(t, "h200"), h100}}, "", ""},
		"preference list: none passes": {attrs + `.productName == "NVIDIA B200"`, Target{Class: ClassGPU, Accelerators: []*catalog.Accelerator{model(t, "h200"), h100}},
			"Selector contradicts the GPU request", `NVIDIA H200 \("h200"\), NVIDIA H100 80GB \("h100-80gb"\)`},
		"model without a recorded name": {attrs + `.productName == "NVIDIA A100-SXM4-40GB"`, Target{Class: ClassGPU, Accelerators: []*catalog.Accelerator{a100}}, "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			diags := CheckSelectors(gpudiag.At("gpu", "dra", "selectors"), []string{"", c.selector}, c.target)
			if c.summary == "" {
				if len(diags) > 0 {
					t.Fatalf("want no finding, got %v", diags)
				}
				return
			}
			if len(diags) != 1 {
				t.Fatalf("want one finding, got %v", diags)
			}
			d := diags[0]
			if d.Severity != gpudiag.SeverityError || d.Summary != c.summary || d.PathString() != "gpu.dra.selectors[1]" {
				t.Errorf("got %v; want an error %q at gpu.dra.selectors[1]", d, c.summary)
			}
			if !regexp.MustCompile(c.want).MatchString(d.Detail) {
				t.Errorf("detail %q does not match %q", d.Detail, c.want)
			}
		})
	}
}

// TestCheckSelectorsWarnsOnReleaseBoundNames: a name one driver release in
// use publishes and the other does not is a warning naming the releases;
// the selector's other names are still checked.
func TestCheckSelectorsWarnsOnReleaseBoundNames(t *testing.T) {
	const std = `device.attributes["resource.kubernetes.io"]`
	h100 := model(t, "h100-80gb")
	whole := Target{Class: ClassGPU, Accelerators: []*catalog.Accelerator{h100}}
	mig := Target{Class: ClassMIG, Accelerators: []*catalog.Accelerator{h100}, Partition: profile(t, h100, "3g.40gb")}
	vfio := Target{Class: "vfio.gpu.nvidia.com"}
	for name, c := range map[string]struct {
		selector string
		target   Target
		want     string
	}{
		"numaNode on whole GPUs":         {std + `.numaNode == 0`, whole, `"numaNode" \(resource.kubernetes.io attribute\) is published from driver v0.5.0 on .*v0.4.x does not publish it.*follows NVIDIA's DRA driver v0.4.x and v0.5.0`},
		"numaNode on MIG":                {std + `.numaNode == 1`, mig, `from driver v0.5.0 on`},
		"numa on VFIO":                   {attrs + `.numa == 0`, vfio, `"numa" \(gpu.nvidia.com attribute\) was removed in driver v0.5.0 .*; v0.4.x still publishes it`},
		"numa on a class not known here": {attrs + `.numa == 0`, Target{Class: "gpu.example.com"}, `v0.4.x still publishes it`},
	} {
		t.Run(name, func(t *testing.T) {
			diags := CheckSelectors(gpudiag.At("s"), []string{c.selector}, c.target)
			if len(diags) != 1 {
				t.Fatalf("want one finding, got %v", diags)
			}
			d := diags[0]
			if d.Severity != gpudiag.SeverityWarning || d.Summary != "Selector names an attribute only some driver releases publish" {
				t.Errorf("got %v; want the release warning", d)
			}
			if !regexp.MustCompile(c.want).MatchString(d.Detail) {
				t.Errorf("detail %q does not match %q", d.Detail, c.want)
			}
		})
	}
	// The warning does not hide an unpublished name beside it.
	diags := CheckSelectors(gpudiag.At("s"), []string{std + `.numaNode == 0 && ` + attrs + `.index == 0`}, whole)
	if len(diags) != 2 || diags[0].Severity != gpudiag.SeverityWarning || diags[1].Severity != gpudiag.SeverityError ||
		!strings.Contains(diags[1].Detail, "v25.8.0") {
		t.Errorf("want the release warning and the removed index, got %v", diags)
	}
}

// TestCheckSelectorsReportsEachSelector: findings are per selector, and a
// selector naming two unpublished attributes gets both.
func TestCheckSelectorsReportsEachSelector(t *testing.T) {
	diags := CheckSelectors(gpudiag.At("s"), []string{attrs + `.index == 0 && ` + attrs + `.minor == 0`, "1 +", "true"}, Target{Class: ClassGPU})
	var paths []string
	for _, d := range diags {
		paths = append(paths, d.PathString())
	}
	if want := []string{"s[0]", "s[0]", "s[1]"}; !slices.Equal(paths, want) {
		t.Errorf("paths %q, want %q (%v)", paths, want, diags)
	}
}

// TestAllowedNamesAreTheDriversList: the allowed names come from the one
// table, hold no removed name, and "" (a class not known here) allows
// every type's.
func TestAllowedNamesAreTheDriversList(t *testing.T) {
	for name := range removed {
		if slices.Contains(AttributeNames(""), name) {
			t.Errorf("%s is both published and removed", name)
		}
	}
	for _, typ := range deviceTypes {
		for _, name := range AttributeNames(typ) {
			if !slices.Contains(AttributeNames(""), name) {
				t.Errorf("%s's %s is missing from the union", typ, name)
			}
		}
	}
	AttributeNames(TypeGPU)[0] = "edited"
	if AttributeNames(TypeGPU)[0] != "type" {
		t.Error("AttributeNames shares its list with callers")
	}
}

func TestIsMemorySlice(t *testing.T) {
	for name, want := range map[string]bool{"memorySlice0": true, "memorySlice7": true, "memorySlice8": false,
		"memorySlice": false, "memorySlice01": false, "memory": false} {
		if got := isMemorySlice(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
