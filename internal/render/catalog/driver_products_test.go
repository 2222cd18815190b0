package catalog

import (
	"slices"
	"testing"
)

// TestDriverProductsAreGFDProducts: every driver product name is one of the
// model's GFD products with its spaces kept (GFD labels NVML's name with
// spaces as '-'), is listed once in the whole catalog (a claim selecting it
// must mean one model), and reports memory below the nominal size.
func TestDriverProductsAreGFDProducts(t *testing.T) {
	owner := map[string]string{}
	for _, a := range Accelerators() {
		for _, p := range a.DriverProducts {
			if !slices.Contains(a.GFDProducts, p.GFDProduct()) {
				t.Errorf("%s: driver product %q is %q as a GFD label, not one of %q", a.Name, p.Name, p.GFDProduct(), a.GFDProducts)
			}
			if other, dup := owner[p.Name]; dup {
				t.Errorf("driver product %q belongs to both %s and %s", p.Name, other, a.Name)
			}
			owner[p.Name] = a.Name
			if p.MemoryMiB <= 0 || p.MemoryMiB > a.MemoryMiB {
				t.Errorf("%s: driver product %q reports %d MiB; want 1 to the nominal %d", a.Name, p.Name, p.MemoryMiB, a.MemoryMiB)
			}
		}
	}
}

// TestGFDProductsWithoutDriverName: the variants a claim by product name
// would miss are the GFD products with no driver product.
func TestGFDProductsWithoutDriverName(t *testing.T) {
	h100, _ := LookupAccelerator("h100-80gb")
	if got, want := h100.GFDProductsWithoutDriverName(), []string{"NVIDIA-H100-PCIe"}; !slices.Equal(got, want) {
		t.Errorf("h100-80gb: got %q, want %q", got, want)
	}
	l4, _ := LookupAccelerator("l4")
	if got := l4.GFDProductsWithoutDriverName(); !slices.Equal(got, l4.GFDProducts) {
		t.Errorf("l4 has no driver product, so every GFD product is missed; got %q", got)
	}
}
