package resourcekit

// Strictness says how final a model's values are: configuration
// (ValidateConfig: a zero value may be one Terraform does not know yet, so
// required values are not checked) or final (plan, apply, read: strict
// unless some value is still unknown).
type Strictness bool

// The two strictnesses a resource's intent is decoded with.
const (
	Lenient Strictness = false
	Final   Strictness = true
)
