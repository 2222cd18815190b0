package ray

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Name limits of KubeRay v1.5.0 (controllers/ray/utils/constant.go,
// validation.go): a RayCluster's name is a DNS-1035 label of at most 53
// characters, and a RayJob's or RayService's at most 47, because KubeRay
// names their cluster after them with a suffix.
const (
	MaxClusterNameLength = 53
	MaxJobNameLength     = MaxClusterNameLength - 6
)

// Group names KubeRay or Kueue keep for the head: Kueue's pod set of the
// head is "head" (its RayCluster webhook refuses a worker group of that
// name), and KubeRay labels head pods ray.io/group=headgroup, so a worker
// group of that name would share the head's label.
var reservedGroupNames = []string{"head", "headgroup"}

// workerPath is where a worker group's findings go.
func workerPath(i int, attr ...any) []any {
	return append([]any{"worker_group", i}, attr...)
}

func headPath(attr ...any) []any { return append([]any{"head"}, attr...) }

// checkClusterName: the object's name, by KubeRay's rules for its kind.
func checkClusterName(c spec.RayCluster, diags *gpudiag.Diagnostics) {
	if c.Name == "" {
		return
	}
	limit, kind := MaxClusterNameLength, "RayCluster"
	if c.Job != nil || c.Serve != nil {
		limit, kind = MaxJobNameLength, "RayJob or RayService"
	}
	var msgs []string
	if len(c.Name) > limit {
		msgs = append(msgs, "longer than "+strconv.Itoa(limit)+" characters")
	}
	msgs = append(msgs, validation.IsDNS1035Label(c.Name)...)
	if len(msgs) > 0 {
		diags.AddError(gpudiag.At("name"), "Invalid name", strconv.Quote(c.Name)+" is not a "+kind+" name KubeRay accepts: "+
			strings.Join(msgs, "; ")+". Allowed: a DNS-1035 label (a lower-case letter first) of at most "+strconv.Itoa(limit)+
			" characters.")
	}
	if c.Namespace != "" {
		if msgs := names.DNS1123Label(c.Namespace); len(msgs) > 0 {
			diags.AddError(gpudiag.At("namespace"), "Invalid namespace", strconv.Quote(c.Namespace)+": "+
				strings.Join(msgs, "; ")+". Allowed: a DNS-1123 label, or unset for \""+spec.DefaultNamespace+"\".")
		}
	}
}

// checkGroupNames: each worker group has a name that is a label value
// (ray.io/group), a Kueue pod set name and part of its pods' names, so a
// DNS-1123 label; unique, and none the head's.
func checkGroupNames(groups []spec.RayGroup, strict bool, diags *gpudiag.Diagnostics) {
	seen := map[string]int{}
	for i, g := range groups {
		path := workerPath(i, "name")
		switch {
		case g.Name == "":
			if strict {
				diags.AddFinalError(path, "Worker group without a name", "Every worker group needs a name. Allowed: a DNS-1123 label such as \"gpu-workers\".")
			}
			continue
		case len(names.DNS1123Label(g.Name)) > 0:
			diags.AddError(path, "Invalid worker group name", strconv.Quote(g.Name)+": "+strings.Join(names.DNS1123Label(g.Name), "; ")+
				". Allowed: a DNS-1123 label: it is the pods' ray.io/group label, Kueue's pod set and part of the pod names.")
		case isReserved(g.Name):
			diags.AddError(path, "Reserved worker group name", strconv.Quote(g.Name)+" names the head: Kueue's pod set of the head is "+
				"\"head\" and KubeRay labels head pods ray.io/group=headgroup. Allowed: any other name.")
		}
		if first, dup := seen[g.Name]; dup {
			diags.AddError(path, "Duplicate worker group name", strconv.Quote(g.Name)+" is already the name of worker_group["+
				strconv.Itoa(first)+"]. Allowed: a name of its own: KubeRay and Kueue tell the groups apart by name.")
			continue
		}
		seen[g.Name] = i
	}
}

func isReserved(name string) bool {
	for _, r := range reservedGroupNames {
		if name == r {
			return true
		}
	}
	return false
}
