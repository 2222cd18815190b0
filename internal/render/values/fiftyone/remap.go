package fiftyone

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

func InputPath(in *Values, keys []string) []any {
	if in == nil || len(keys) < 3 {
		return nil
	}
	var list string
	index := -1
	switch {
	case keys[0] == "delegatedOperatorDeployments" && keys[1] == "deployments":
		list = "deployment"
		index = slices.IndexFunc(in.Deployments, func(d FiftyOneDeployment) bool { return d.Key == keys[2] })
	case keys[0] == "delegatedOperatorJobTemplates" && keys[1] == "jobs":
		list = "job_template"
		index = slices.IndexFunc(in.JobTemplates, func(j JobTemplate) bool { return j.Key == keys[2] })
	}
	if index < 0 {
		return nil
	}
	return append(gpudiag.At(list, index), fiftyOneField(keys[3:])...)
}

// fiftyOneField maps a key inside one deployment/job entry to its attribute.
func fiftyOneField(keys []string) []any {
	if len(keys) == 0 {
		return nil
	}
	direct := map[string]string{
		"enabled": "enabled", "replicaCount": "replicas", "description": "description",
		"backoffLimit": "backoff_limit", "activeDeadlineSeconds": "active_deadline_seconds",
		"ttlSecondsAfterFinished": "ttl_seconds_after_finished", "parallelism": "parallelism",
		// Placement is derived from the gpu block (and node_pool).
		"nodeSelector": "gpu", "tolerations": "gpu", "affinity": "gpu",
	}
	if attr, ok := direct[keys[0]]; ok {
		return gpudiag.At(attr)
	}
	switch keys[0] {
	case "env":
		if len(keys) > 1 {
			return gpudiag.At("env", gpudiag.MapKey(keys[1]))
		}
		return gpudiag.At("env")
	case "image":
		if len(keys) > 1 && (keys[1] == "repository" || keys[1] == "tag") {
			return gpudiag.At("image", keys[1])
		}
		return gpudiag.At("image")
	case "resources":
		if len(keys) > 2 {
			switch keys[2] {
			case "cpu":
				return gpudiag.At("cpu")
			case "memory":
				return gpudiag.At("memory")
			}
			if chartkit.IsExtendedResource(keys[2]) {
				return gpudiag.At("gpu", "count")
			}
		}
	}
	return nil
}
