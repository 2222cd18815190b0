package resourcekit

import (
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// subtract returns the diagnostics of all that are not in seen, so a rule
// reported once is not reported again by a later stage.
func Subtract(all, seen gpudiag.Diagnostics) gpudiag.Diagnostics {
	known := map[string]bool{}
	for _, d := range seen {
		known[d.String()] = true
	}
	var out gpudiag.Diagnostics
	for _, d := range all {
		if !known[d.String()] {
			out = append(out, d)
		}
	}
	return out
}

// pathOf maps a render attribute path to a Terraform attribute path.
func pathOf(steps []any) path.Path {
	if len(steps) == 0 {
		return path.Empty()
	}
	var p path.Path
	for i, s := range steps {
		switch v := s.(type) {
		case string:
			if i == 0 {
				p = path.Root(v)
			} else {
				p = p.AtName(v)
			}
		case int:
			p = p.AtListIndex(v)
		case gpudiag.MapKey:
			p = p.AtMapKey(string(v))
		}
	}
	return p
}
