package spec

// Labels Render puts on every object.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "terraform-provider-gpu"
)
