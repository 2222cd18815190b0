package resourcekit

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// ApplyObjects server-side applies the rendered objects in order (render
// puts each object's dependencies before it) and returns the last, the
// resource's main object, as the server stored it; false after an error.
// hint, when set, adds to a refused apply's error where an object comes
// from, so the error names the fix. Fields changed outside Terraform are
// set back (kube.Apply) and a warning says so.
func ApplyObjects(ctx context.Context, client *kube.Client, objects []workload.Object, force bool,
	hint func(workload.Object) string, diags *diag.Diagnostics) (*unstructured.Unstructured, bool) {
	var last *unstructured.Unstructured
	for _, obj := range objects {
		result, err := client.Apply(ctx, obj, force)
		if err != nil {
			detail := err.Error()
			if hint != nil {
				detail += hint(obj)
			}
			diags.AddError("Server-side apply failed", detail)
			return nil, false
		}
		if len(result.TookBack) > 0 {
			ref, _ := kube.RefOf(obj)
			diags.AddWarning("Repaired drift", fmt.Sprintf("%s had fields changed outside Terraform by %s; they were "+
				"set back to the configuration.", ref, strings.Join(result.TookBack, ", ")))
		}
		last = result.Object
	}
	return last, last != nil
}
