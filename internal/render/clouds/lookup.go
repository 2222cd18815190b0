package clouds

import "github.com/gpuform/terraform-provider-gpu/internal/render/spec"

// Cloud is a cloud looked up once by name (Lookup): the rules that follow
// ask its Profile instead of looking the name up again.
type Cloud struct {
	// Name is the cloud as configured; "" when unset or unknown.
	Name spec.Cloud
	// Profile holds the cloud's rules: the neutral answers (offers nothing,
	// places nothing) when the cloud is unset or unknown.
	Profile
	// Known is false for an unset or unknown cloud, whose rules are skipped
	// (lenient validation runs before the cloud is known).
	Known bool
}

// Lookup finds the registered profile of c. It is the one place a name
// becomes rules: workload, pool and chart values resolve their cloud here
// once and pass the Cloud down.
func Lookup(c spec.Cloud) Cloud {
	if p := ProfileFor(c); p != nil {
		return Cloud{Name: c, Profile: p, Known: true}
	}
	return Cloud{Profile: unknownCloud{}}
}
