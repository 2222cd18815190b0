package dra_test

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// TestPoolLabelIsTheQueues: a pool's DeviceClass and its ResourceFlavor
// name the pool with the same label.
func TestPoolLabelIsTheQueues(t *testing.T) {
	if dra.LabelPool != queue.LabelPool {
		t.Errorf("dra.LabelPool %q, queue.LabelPool %q", dra.LabelPool, queue.LabelPool)
	}
}
