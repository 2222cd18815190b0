package ray

// rayAcceleratorTypes maps the catalog's models to Ray's accelerator type
// names (ray-project/ray python/ray/util/accelerators/accelerators.py:
// "V100", "T4", "A10G", "L4", "L40S", "A100", "H100", "H200", "B200").
// Ray names a model by its family, so both A100 sizes are "A100" (Ray's
// "A100-40G"/"A100-80G" are labels it never sets itself). Models Ray's
// list lacks get no label: Ray detects them on the node, and a name the
// provider made up could match nothing Ray's users select.
var rayAcceleratorTypes = map[string]string{
	"v100-16gb": "V100",
	"v100-32gb": "V100",
	"t4":        "T4",
	"a10g":      "A10G",
	"l4":        "L4",
	"l40s":      "L40S",
	"a100-40gb": "A100",
	"a100-80gb": "A100",
	"h100-80gb": "H100",
	"h100-nvl":  "H100",
	"h200":      "H200",
	"b200":      "B200",
}

// AcceleratorType is Ray's name of a catalog model, "" when Ray's list
// does not have it (or the model is not known: any GPU).
func AcceleratorType(catalogID string) string { return rayAcceleratorTypes[catalogID] }
