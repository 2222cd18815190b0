package flyte

// flytekitDevices are flytekit's accelerator device strings per catalog
// model (flytekit/extras/accelerators.py, docs/design/flyte.md#flytekit-accelerator-constants).
// They are Flyte's names, so they live with Flyte rather than in the
// catalog. Where a cloud's device label holds another value, the values
// tell the user which GPUAccelerator string to use (flyteDeviceNotes). A
// model without an entry has no device string here ("": the A10 and A30
// have no flytekit constant).
var flytekitDevices = map[string]string{
	"a100-40gb": "nvidia-tesla-a100",
	"a100-80gb": "nvidia-a100-80gb",
	"a10g":      "nvidia-a10g",
	// flytekit v1 has no B200 constant; Flyte v2's accelerator-devices
	// maps "B200" to "nvidia-b200".
	"b200":      "nvidia-b200",
	"h100-80gb": "nvidia-h100",
	"h200":      "nvidia-h200",
	"l4":        "nvidia-l4",
	"l40s":      "nvidia-l40s",
	"t4":        "nvidia-tesla-t4",
	"v100-16gb": "nvidia-tesla-v100",
	"v100-32gb": "nvidia-tesla-v100",
}

// Device is the flytekit accelerator device string of a catalog model, ""
// when flytekit has no constant for it (the gpu_accelerators data source
// shows it as flyte_device).
func Device(model string) string { return flytekitDevices[model] }
