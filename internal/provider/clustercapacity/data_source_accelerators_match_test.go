package clustercapacity

import (
	"math"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
)

// A minimum above every model matches none: an integer min_memory_gib*1024
// used to overflow for huge minimums and then matched every model.
func TestAcceleratorMatches_hugeMinimum(t *testing.T) {
	for _, minimum := range []float64{1 << 20, math.MaxInt64 / 1024 * 2, math.MaxInt64, math.MaxFloat64} {
		m := acceleratorsModel{MIG: types.BoolNull(), MinMemoryGiB: types.Float64Value(minimum)}
		for _, a := range catalog.Accelerators() {
			if acceleratorMatches(a, m, nil) {
				t.Errorf("min_memory_gib = %g matches %s (%d MiB)", minimum, a.Name, a.MemoryMiB)
			}
		}
	}
}
