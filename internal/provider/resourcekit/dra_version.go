package resourcekit

import (
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// DRAVersionOf recovers, from a manifest the last apply rendered, the
// server version it rendered DRA objects for: the resource.k8s.io version
// of its claim templates says it. nil when the manifest has none. Without
// it a plan would show a DRA resource's manifest as unknown on every run.
func DRAVersionOf(manifest string) *utilversion.Version {
	switch {
	case strings.Contains(manifest, "apiVersion: "+workload.DRAAPIVersionV1beta1+"\n"):
		return utilversion.MajorMinor(1, 33)
	case strings.Contains(manifest, "apiVersion: "+workload.DRAAPIVersionV1+"\n"):
		return utilversion.MajorMinor(1, 34)
	default:
		return nil
	}
}
