package workload

import (
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// validateModelCache: either mount an existing claim (claim_name) or let the
// provider create one (size, storage_class, access_mode), never both.
func validateModelCache(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	mc := w.ModelCache
	if mc == nil {
		return
	}
	if mc.ClaimName != "" {
		validateExistingClaim(mc, diags)
	} else {
		validateCreatedClaim(mc, strict, diags)
	}
	validateMountPath(mc.MountPath, diags)
	if mc.ClaimName == "" {
		validateClaimSharing(w, diags)
	}
}

func validateExistingClaim(mc *spec.ModelCache, diags *gpudiag.Diagnostics) {
	if msgs := names.DNS1123Subdomain(mc.ClaimName); len(msgs) > 0 {
		diags.AddError(gpudiag.At("model_cache", "claim_name"), "Invalid claim name",
			strconv.Quote(mc.ClaimName)+": "+strings.Join(msgs, "; ")+". Allowed: the name of an existing PersistentVolumeClaim.")
	}
	for _, f := range []struct{ attribute, value string }{
		{"size", mc.Size}, {"storage_class", mc.StorageClass}, {"access_mode", mc.AccessMode},
	} {
		if f.value != "" {
			diags.AddError(gpudiag.At("model_cache", f.attribute), f.attribute+" conflicts with claim_name",
				f.attribute+" configures the claim the provider creates, but claim_name mounts an existing claim. "+
					"Allowed: remove "+f.attribute+", or remove claim_name to have the provider create <name>"+modelCacheSuffix+".")
		}
	}
}

func validateCreatedClaim(mc *spec.ModelCache, strict bool, diags *gpudiag.Diagnostics) {
	if mc.Size == "" && strict {
		diags.AddFinalError(gpudiag.At("model_cache"), "Model cache needs a claim",
			"Set claim_name to mount an existing PersistentVolumeClaim, or size (e.g. \"200Gi\") to have the provider create one.")
	}
	CheckQuantity(diags, mc.Size, gpudiag.At("model_cache", "size"), maxStorage, "a storage quantity such as \"200Gi\"")
	if mc.StorageClass != "" {
		if msgs := names.DNS1123Subdomain(mc.StorageClass); len(msgs) > 0 {
			diags.AddError(gpudiag.At("model_cache", "storage_class"), "Invalid storage class",
				strconv.Quote(mc.StorageClass)+": "+strings.Join(msgs, "; ")+
					". Allowed: a StorageClass name, or leave it unset for the cluster default.")
		}
	}
	if mc.AccessMode != "" && !slices.Contains(spec.AccessModeNames(), mc.AccessMode) {
		diags.AddError(gpudiag.At("model_cache", "access_mode"), "Unknown access mode",
			strconv.Quote(mc.AccessMode)+" is not an access mode. Allowed values: "+gpudiag.QuoteList(spec.AccessModeNames())+
				" (default \"ReadWriteOnce\").")
	}
}

func validateMountPath(mountPath string, diags *gpudiag.Diagnostics) {
	if mountPath == "" {
		return
	}
	clean := path.Clean(mountPath)
	if !path.IsAbs(mountPath) || clean == "/" || clean == shmMountPath || strings.Contains(mountPath, "..") {
		diags.AddError(gpudiag.At("model_cache", "mount_path"), "Invalid mount path",
			strconv.Quote(mountPath)+" cannot hold the model cache. Allowed: an absolute directory other than \"/\" and "+
				shmMountPath+", without \"..\" (default \""+spec.DefaultModelCacheMountPath+"\").")
	}
}

// validateClaimSharing: several pods mounting one created claim. A
// ReadWriteOnce volume attaches to one node, so every pod must land there;
// ReadWriteOncePod admits a single pod, so the others never start.
func validateClaimSharing(w spec.Workload, diags *gpudiag.Diagnostics) {
	pods, attribute := concurrentPods(w)
	if pods <= 1 {
		return
	}
	switch modelCacheAccessMode(w.ModelCache) {
	case corev1.ReadWriteOnce:
		diags.AddWarning(gpudiag.At("model_cache", "access_mode"), "ReadWriteOnce cache shared by several pods",
			strconv.Itoa(int(pods))+" pods ("+attribute+") mount one ReadWriteOnce volume, which attaches to a single node: "+
				"every pod must fit on that node's GPUs or stay Pending. Allowed: access_mode = \"ReadWriteMany\" or "+
				"\"ReadOnlyMany\" with a storage class that supports it, or "+attribute+" = 1.")
	case corev1.ReadWriteOncePod:
		diags.AddError(gpudiag.At("model_cache", "access_mode"), "ReadWriteOncePod cache shared by several pods",
			strconv.Itoa(int(pods))+" pods ("+attribute+") mount one ReadWriteOncePod volume, which admits a single pod. "+
				"Allowed: access_mode = \"ReadWriteMany\" or \"ReadOnlyMany\", or "+attribute+" = 1.")
	}
}

// concurrentPods is how many pods may run at once, and the attribute that
// says so.
func concurrentPods(w spec.Workload) (int32, string) {
	k, ok := kinds.Lookup(w.Kind)
	if !ok || (k.ModelCachePerPod && modelCacheCreated(w)) {
		return 1, "" // a created cache is then one claim per pod (claim templates)
	}
	if pods, attr := k.Pods(w); pods > 0 {
		return int32(pods), attr
	}
	return 1, ""
}
