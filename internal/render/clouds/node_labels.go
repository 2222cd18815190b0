package clouds

import (
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func positive(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0
}

func ParseCount(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// NodeClass is where a node belongs and what GPU it has.
type NodeClass struct {
	Key     string
	Cloud   spec.Cloud
	Product string
	Accel   *catalog.Accelerator
}
