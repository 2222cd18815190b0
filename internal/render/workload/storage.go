package workload

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

const (
	volumeShm        = "dshm"
	volumeModelCache = "model-cache"
	shmMountPath     = "/dev/shm"
	// modelCacheSuffix names the claim Render creates: <name>-model-cache.
	modelCacheSuffix = "-model-cache"
)

// shmVolume replaces the container runtime's 64 MiB /dev/shm with a
// memory-backed emptyDir. Its pages count against the container's memory
// limit, which is why validation warns when shm_size exceeds memory.
func shmVolume(size resource.Quantity) (corev1.Volume, corev1.VolumeMount) {
	return corev1.Volume{
			Name: volumeShm,
			VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: &size,
			}},
		},
		corev1.VolumeMount{Name: volumeShm, MountPath: shmMountPath}
}

// shmSize is the size of the pod's /dev/shm: shm_size, else, on a kind
// whose pods need shared memory (kindkit.Kind.SharedMemory: NCCL between
// the GPUs of a pod, data loader workers), DefaultShmSize of the
// container's memory limit; nil for no /dev/shm volume. false when
// shm_size does not parse, which validation reports first.
func shmSize(w spec.Workload, kind kindkit.Kind, res corev1.ResourceRequirements) (*resource.Quantity, bool) {
	if w.ShmSize != "" {
		size, err := resource.ParseQuantity(w.ShmSize)
		return &size, err == nil
	}
	memory, ok := res.Limits[corev1.ResourceMemory]
	if !kind.SharedMemory || !ok {
		return nil, true
	}
	size := DefaultShmSize(memory)
	return &size, true
}

// DefaultShmSize is half the memory limit: the tmpfs pages count against
// the limit (request = limit), so the other half stays for the processes,
// while NCCL's shared-memory segments and the data loader's batches get far
// more than the container runtime's 64 MiB, which both outgrow (NCCL fails
// to create its segment; data loader workers die of a bus error).
func DefaultShmSize(memory resource.Quantity) resource.Quantity {
	return *resource.NewQuantity(memory.Value()/2, resource.BinarySI)
}

// modelCacheClaimName is the claim the pod mounts: the user's, or ours.
func modelCacheClaimName(w spec.Workload) string {
	if w.ModelCache.ClaimName != "" {
		return w.ModelCache.ClaimName
	}
	return w.Name + modelCacheSuffix
}

func modelCacheVolume(w spec.Workload) (corev1.Volume, corev1.VolumeMount) {
	mc := w.ModelCache
	mountPath := mc.MountPath
	if mountPath == "" {
		mountPath = spec.DefaultModelCacheMountPath
	}
	return corev1.Volume{
			Name: volumeModelCache,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
				ClaimName: modelCacheClaimName(w),
			}},
		},
		corev1.VolumeMount{Name: volumeModelCache, MountPath: path.Clean(mountPath), ReadOnly: mc.ReadOnly}
}

// modelCacheAccessMode defaults to ReadWriteOnce, the mode every storage
// class supports; ReadWriteMany needs a file store (Filestore, Azure Files,
// EFS).
func modelCacheAccessMode(mc *spec.ModelCache) corev1.PersistentVolumeAccessMode {
	if mc.AccessMode == "" {
		return corev1.ReadWriteOnce
	}
	return corev1.PersistentVolumeAccessMode(mc.AccessMode)
}

// modelCacheCreated reports whether Render creates the claim (no claim_name).
func modelCacheCreated(w spec.Workload) bool {
	return w.ModelCache != nil && w.ModelCache.ClaimName == ""
}

// modelCachePVC returns the claim to create, or nil when the workload mounts
// an existing one (or none).
func modelCachePVC(w spec.Workload) (*corev1.PersistentVolumeClaim, bool) {
	if !modelCacheCreated(w) {
		return nil, true
	}
	mc := w.ModelCache
	size, err := resource.ParseQuantity(mc.Size)
	if err != nil {
		return nil, false
	}
	meta := ObjectMeta(w)
	meta.Name = w.Name + modelCacheSuffix
	pvc := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: meta,
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{modelCacheAccessMode(mc)},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
	if mc.StorageClass != "" {
		storageClass := mc.StorageClass
		pvc.Spec.StorageClassName = &storageClass
	}
	return pvc, true
}

// claimTemplate turns the model-cache claim into a StatefulSet volume claim
// template: named after the pod volume it replaces, so the existing mount
// uses it, and without the namespace and labels the controller sets.
func claimTemplate(pvc corev1.PersistentVolumeClaim) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: volumeModelCache},
		Spec:       pvc.Spec,
	}
}
