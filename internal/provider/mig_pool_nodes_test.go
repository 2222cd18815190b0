package provider

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Fake MIG nodes for issue #41, labelled as GPU Feature Discovery labels a
// node of 8 H100 80GB HBM3 cut into one profile, under its "single" MIG
// strategy, and (for DRA) with the ResourceSlice NVIDIA's DRA driver
// publishes for its MIG devices.

// h100GFDReading is the real GFD v0.20.0 output on an H100 80GB HBM3,
// kept in the catalog's testdata (copied from the project's shared facts,
// gpu-labels/h100-80gb-hbm3/gfd-single.txt; its README says how it was
// read). It was read with MIG disabled, so migLabels applies GFD's MIG
// labeller on top.
const h100GFDReading = "../render/catalog/testdata/gfd/h100-80gb-hbm3/gfd-single.txt"

// h100NVMLName is the name NVML reports (the reading's query.csv), the
// DRA driver's productName.
const h100NVMLName = "NVIDIA H100 80GB HBM3"

// migProfileFacts is what GFD's single-strategy labeller writes for one MIG
// profile besides its product and count (the device's attributes), from
// the real H100's `nvidia-smi mig -lgip` (same testdata folder): slices,
// SMs and engines. The MIG memory label is left out: nvidia-smi prints it
// rounded to GiB, not the MiB NVML gives GFD.
type migProfileFacts struct {
	profile                               string
	perGPU                                int
	slices, sms, copy, dec, enc, jpg, ofa int
}

var (
	h100MIG2g20gb = migProfileFacts{profile: "2g.20gb", perGPU: 3, slices: 2, sms: 32, copy: 2, dec: 2, jpg: 2}
	h100MIG3g40gb = migProfileFacts{profile: "3g.40gb", perGPU: 2, slices: 3, sms: 60, copy: 3, dec: 3, jpg: 3}
)

// readGFDLabels reads a GFD output file: one label=value per line.
func readGFDLabels(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(s.Text()), "="); ok {
			out[k] = v
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// gfdSingleMIGLabels are the labels of a node of gpus H100s all cut into
// m under GFD's "single" strategy (k8s-device-plugin v0.20.0
// internal/lm/mig-strategy.go: the MIG labeller's resource is
// nvidia.com/gpu, so it writes over the whole-GPU labels), with the GPU
// Operator's labels for the layout and allocation method.
func gfdSingleMIGLabels(t *testing.T, gpus int, m migProfileFacts, layout string, devicePlugin bool) map[string]string {
	t.Helper()
	l := readGFDLabels(t, h100GFDReading)
	delete(l, "nvidia.com/gpu.memory")
	l["nvidia.com/gpu.product"] = l["nvidia.com/gpu.product"] + "-MIG-" + m.profile
	l["nvidia.com/gpu.count"] = strconv.Itoa(gpus * m.perGPU)
	l["nvidia.com/gpu.replicas"] = "1"
	l["nvidia.com/gpu.sharing-strategy"] = "none"
	for k, v := range map[string]int{"slices.gi": m.slices, "slices.ci": m.slices, "multiprocessors": m.sms,
		"engines.copy": m.copy, "engines.decoder": m.dec, "engines.encoder": m.enc, "engines.jpeg": m.jpg, "engines.ofa": m.ofa} {
		l["nvidia.com/gpu."+k] = strconv.Itoa(v)
	}
	// The GPU Operator's: its node labeller and mig-manager.
	l["nvidia.com/gpu.present"] = "true"
	l["nvidia.com/mig.config"] = layout
	l["nvidia.com/mig.config.state"] = "success"
	l["nvidia.com/gpu.deploy.device-plugin"] = strconv.FormatBool(devicePlugin)
	return l
}

// gpuTaint is the generic pools' GPU taint, which gpu_workload tolerates.
var gpuTaint = corev1.Taint{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}

// publishMIGSlice publishes, for node, the ResourceSlice NVIDIA's DRA
// driver would: one pool named after the node holding its gpus x perGPU
// MIG devices of m (docs/design/dra.md §1.5 and §8; device names as from
// v25.12.0). The node owns it, so it goes with the node.
func publishMIGSlice(t *testing.T, node string, gpus int, m migProfileFacts) {
	t.Helper()
	cs := acctest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) resourcev1.DeviceAttribute { return resourcev1.DeviceAttribute{StringValue: &s} }
	var devices []resourcev1.Device
	for gpu := range gpus {
		for i := range m.perGPU {
			devices = append(devices, resourcev1.Device{
				Name: fmt.Sprintf("gpu-%d-mig-%s-%d", gpu, strings.ReplaceAll(m.profile, ".", ""), i),
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
					"type": str("mig"), "productName": str(h100NVMLName), "profile": str(m.profile),
					"uuid":       str(fmt.Sprintf("MIG-%s-%d-%d", node, gpu, i)),
					"parentUUID": str(fmt.Sprintf("GPU-%s-%d", node, gpu)),
				},
			})
		}
	}
	controller := true
	slice := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "00000-gpu.nvidia.com-" + node, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "v1", Kind: "Node", Name: node, UID: n.UID, Controller: &controller}}},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.nvidia.com", NodeName: &node,
			Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}, Devices: devices},
	}
	if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("publishing the ResourceSlice of %s: %v", node, err)
	}
	t.Cleanup(func() {
		err := cs.ResourceV1().ResourceSlices().Delete(context.Background(), slice.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting ResourceSlice %s: %v", slice.Name, err)
		}
	})
}

// checkMIGDevicesOn asserts every device allocated to the workload's pods
// is a MIG device of profile on node.
func checkMIGDevicesOn(t *testing.T, ns, name, node, profile string, want int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	devices, err := allocatedDevices(ctx, acctest.Client(t), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(devices) != want {
		t.Fatalf("%d devices allocated, want %d: %+v", len(devices), want, devices)
	}
	for _, d := range devices {
		if d.node != node || d.pool != node || d.attributes["type"] != "mig" || d.attributes["profile"] != profile {
			t.Errorf("device %s of pool %s on %s (%v), want a %s MIG device of %s", d.device, d.pool, d.node, d.attributes, profile, node)
		}
	}
}
