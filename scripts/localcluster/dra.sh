#!/usr/bin/env bash
# The DRA pools' devices: the DeviceClasses of NVIDIA's DRA driver chart (dra/deviceclasses.yaml) and, for
# every node labelled fixtures.gpuform.io/dra-driver=gpu.nvidia.com (fixtures/dra.yaml), the ResourceSlice
# the driver's kubelet plugin (kubernetes-sigs/dra-driver-nvidia-gpu, cmd/gpu-kubelet-plugin) would publish
# for it. No kubelet plugin runs under kwok, so the slices are applied like the nodes, on every
# apply_fixtures (cluster.sh up, cluster.sh fixtures). docs/design/dra.md holds the facts each value follows.
# The slices follow driver v0.5.0 with its feature gates at their defaults, read at the repository's main
# 95932046 (VERSION v0.5.0-dev, 2026-08-07; the release tag itself was not in the snapshot read): v0.4.1's
# devices and names, plus resource.kubernetes.io/numaNode on every GPU and MIG device. VFIO's bare numa
# attribute, which v0.5.0 dropped, is not written: no VFIO device is published (PassthroughSupport is off).
# Sourced by fixtures.sh; uses fk, log and FIELD_MANAGER from it and cluster.sh.
# shellcheck disable=SC2154 # variables are set by cluster.sh before it sources this file

DRA_DRIVER=gpu.nvidia.com
DRA_NODE_LABEL=fixtures.gpuform.io/dra-driver
DRA_CLASSES=$SCRIPT_DIR/dra/deviceclasses.yaml

# The PCI layout of the 8 GPUs of a node, by minor: bus ID, PCIe root and NUMA node. Illustrative (a DGX-like
# machine, two sockets, one root per GPU), not read from a machine; every DRA node has the same.
DRA_PCI_BUS=(18 2a 3a 5d 9a ab ba db)
DRA_PCI_ROOT=(15 27 37 5a 97 a8 b7 d8)

# dra_nvml_name PRODUCT: NVML's device name (the driver's productName) for GFD's nvidia.com/gpu.product, which
# is that name with dashes for spaces and so cannot be turned back. H100 and H200: the real readings'
# query.csv (internal/render/catalog/testdata/gfd/); A100: the driver's README and hack/ci/mock-nvml/common.sh.
dra_nvml_name() {
  case $1 in
    NVIDIA-H100-80GB-HBM3) echo "NVIDIA H100 80GB HBM3" ;;
    NVIDIA-H200) echo "NVIDIA H200" ;;
    NVIDIA-A100-SXM4-40GB) echo "NVIDIA A100-SXM4-40GB" ;;
    *) return 1 ;;
  esac
}

# dra_architecture FAMILY: go-nvlib's architecture string for GFD's nvidia.com/gpu.family.
dra_architecture() {
  case $1 in
    ampere) echo Ampere ;;
    hopper) echo Hopper ;;
    ada-lovelace) echo "Ada Lovelace" ;;
    blackwell) echo Blackwell ;;
    *) return 1 ;;
  esac
}

# dra_mig_profile PRODUCT/PROFILE: NVML's GPU-instance profile as "id memoryMiB multiprocessors copyEngines
# decoders encoders jpegEngines ofaEngines placementSize" (go-nvml pkg/nvml/mock/gpus/a100.go; the IDs are
# those nvidia-smi lists for the same slice shapes on the real H100, docs/design/dra.md).
dra_mig_profile() {
  case $1 in
    NVIDIA-A100-SXM4-40GB/1g.5gb) echo "19 4864 14 1 0 0 0 0 1" ;;
    NVIDIA-A100-SXM4-40GB/2g.10gb) echo "14 9856 28 2 1 0 0 0 2" ;;
    NVIDIA-A100-SXM4-40GB/3g.20gb) echo "9 19968 42 3 2 0 0 0 4" ;;
    *) return 1 ;;
  esac
}

# dra_mig_layout PRODUCT/CONFIG: the MIG devices of one GPU under a mig-parted profile (nvidia.com/mig.config),
# as profile@placementStart; a packing the placements of go-nvml's A100 mock allow.
dra_mig_layout() {
  case $1 in
    NVIDIA-A100-SXM4-40GB/all-balanced) echo "2g.10gb@0 1g.5gb@2 1g.5gb@3 3g.20gb@4" ;;
    *) return 1 ;;
  esac
}

# dra_version V: V as the driver publishes a version attribute (Masterminds semver, coercing: missing parts
# become 0 and leading zeros go, so 580.159.04 is 580.159.4 and 9.0 is 9.0.0).
dra_version() {
  local IFS=. parts
  read -r -a parts <<<"$1"
  printf '%d.%d.%d' "$((10#${parts[0]:-0}))" "$((10#${parts[1]:-0}))" "$((10#${parts[2]:-0}))"
}

# dra_uuid PREFIX KEY: a stable UUID in NVML's form (GPU-… or MIG-…), so re-applying changes nothing.
dra_uuid() {
  local h
  h=$(printf '%s' "$2" | md5sum)
  printf '%s-%s-%s-%s-%s-%s' "$1" "${h:0:8}" "${h:8:4}" "${h:12:4}" "${h:16:4}" "${h:20:12}"
}

# dra_common_attributes MINOR: the attributes a MIG device copies from its GPU (CommonAttributesMig), which
# the GPU has too, from the node's variables set by dra_slice. numaNode is v0.5.0's standard attribute
# (addNumaNodeAttribute, the scalar int while DRAListTypeAttributes is off); MIG devices take the parent's.
dra_common_attributes() {
  local minor=$1
  printf '      productName: {string: "%s"}\n' "$product_name"
  printf '      brand: {string: "Nvidia"}\n'
  printf '      architecture: {string: "%s"}\n' "$architecture"
  printf '      cudaComputeCapability: {version: "%s"}\n' "$compute"
  printf '      driverVersion: {version: "%s"}\n' "$driver_version"
  printf '      cudaDriverVersion: {version: "%s"}\n' "$cuda_version"
  printf '      resource.kubernetes.io/pciBusID: {string: "0000:%s:00.0"}\n' "${DRA_PCI_BUS[minor]}"
  printf '      resource.kubernetes.io/pcieRoot: {string: "pci0000:%s"}\n' "${DRA_PCI_ROOT[minor]}"
  printf '      resource.kubernetes.io/numaNode: {int: %d}\n' "$((minor < 4 ? 0 : 1))"
}

# dra_gpu_device MINOR: a whole GPU (GpuInfo.GetDevice), capacity memory = NVML's total (GFD's gpu.memory).
dra_gpu_device() {
  local minor=$1
  printf '  - name: gpu-%d\n    attributes:\n' "$minor"
  printf '      type: {string: "gpu"}\n'
  printf '      uuid: {string: "%s"}\n' "$(dra_uuid GPU "$node/$minor")"
  dra_common_attributes "$minor"
  printf '    capacity:\n      memory: {value: "%sMi"}\n' "$memory"
}

# dra_mig_device MINOR PROFILE START: a statically created MIG device (MigDeviceInfo.GetDevice), named
# gpu-<minor>-mig-<profile without dots>-<profile id>-<placement start> as from v25.12.0.
dra_mig_device() {
  local minor=$1 profile=$2 start=$3 info id mem sm ce dec enc jpg ofa size i
  info=$(dra_mig_profile "$gfd_product/$profile") || { log "no MIG profile $profile for $gfd_product"; return 1; }
  read -r id mem sm ce dec enc jpg ofa size <<<"$info"
  printf '  - name: gpu-%d-mig-%s-%d-%d\n    attributes:\n' "$minor" "${profile//./}" "$id" "$start"
  printf '      type: {string: "mig"}\n'
  printf '      uuid: {string: "%s"}\n' "$(dra_uuid MIG "$node/$minor/$profile/$start")"
  printf '      parentUUID: {string: "%s"}\n' "$(dra_uuid GPU "$node/$minor")"
  printf '      profile: {string: "%s"}\n' "$profile"
  dra_common_attributes "$minor"
  printf '    capacity:\n'
  printf '      %s: {value: "%s"}\n' multiprocessors "$sm" copyEngines "$ce" decoders "$dec" encoders "$enc" \
    jpegEngines "$jpg" ofaEngines "$ofa" memory "${mem}Mi"
  for ((i = start; i < start + size; i++)); do
    printf '      memorySlice%d: {value: "1"}\n' "$i"
  done
}

# dra_slice NODE UID PRODUCT COUNT MEMORY FAMILY CC DRIVER CUDA MIGCONFIG: the one ResourceSlice of the node's
# pool (the pool is named after the node; without the DynamicMIG gate one slice holds every device). The name
# is the kubelet plugin helper's generateName (the same in v0.4.1 and 95932046) without the apiserver's random
# suffix; the Node owns the slice as the kubelet plugin's does, so deleting the node deletes it.
dra_slice() {
  local node=$1 uid=$2 gfd_product=$3 count=$4 memory=$5 family=$6 mig_config=${10}
  local product_name architecture compute driver_version cuda_version minor entry layout
  product_name=$(dra_nvml_name "$gfd_product") || { log "$node: no NVML name for $gfd_product"; return 1; }
  architecture=$(dra_architecture "$family") || { log "$node: unknown GPU family $family"; return 1; }
  compute=$(dra_version "$7") driver_version=$(dra_version "$8") cuda_version=$(dra_version "$9")
  cat <<EOF
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: 00000-$DRA_DRIVER-$node
  ownerReferences:
  - {apiVersion: v1, kind: Node, name: "$node", uid: "$uid", controller: true}
spec:
  driver: $DRA_DRIVER
  nodeName: $node
  pool: {name: "$node", generation: 1, resourceSliceCount: 1}
  devices:
EOF
  if [[ $mig_config == - ]]; then
    for ((minor = 0; minor < count; minor++)); do dra_gpu_device "$minor"; done
    return
  fi
  # MIG mode: only the MIG devices are published, not their GPUs.
  layout=$(dra_mig_layout "$gfd_product/$mig_config") || { log "$node: no MIG layout $mig_config for $gfd_product"; return 1; }
  for ((minor = 0; minor < count; minor++)); do
    for entry in $layout; do dra_mig_device "$minor" "${entry%@*}" "${entry#*@}" || return 1; done
  done
}

# dra_render: the ResourceSlices of every DRA node in the cluster, from its uid and GFD labels.
dra_render() {
  local nodes line
  local -a f
  # shellcheck disable=SC2016 # go-template
  nodes=$(fk get nodes -l "$DRA_NODE_LABEL=$DRA_DRIVER" -o go-template='{{range .items}}{{$l := .metadata.labels}}{{.metadata.name}} {{.metadata.uid}} {{index $l "nvidia.com/gpu.product"}} {{index $l "nvidia.com/gpu.count"}} {{index $l "nvidia.com/gpu.memory"}} {{index $l "nvidia.com/gpu.family"}} {{index $l "nvidia.com/gpu.compute.major"}}.{{index $l "nvidia.com/gpu.compute.minor"}} {{index $l "nvidia.com/cuda.driver-version.full"}} {{index $l "nvidia.com/cuda.runtime-version.full"}} {{with index $l "nvidia.com/mig.config"}}{{.}}{{else}}-{{end}}{{"\n"}}{{end}}') || return 1
  while read -r line; do
    [[ -n $line ]] || continue
    read -r -a f <<<"$line"
    dra_slice "${f[@]}" || return 1
  done <<<"$nodes"
}

# apply_dra: the DeviceClasses, then the slices. Called after the nodes are applied (the slices name their
# uid). Server-side apply replaces a slice's device list, so a changed layout is published as a whole.
apply_dra() {
  local slices
  fk apply --server-side --force-conflicts --field-manager "$FIELD_MANAGER" -f "$DRA_CLASSES" >/dev/null ||
    { log "applying $DRA_CLASSES failed"; return 1; }
  slices=$(dra_render) || { log "rendering the DRA ResourceSlices failed"; return 1; }
  [[ -n $slices ]] || return 0
  fk apply --server-side --force-conflicts --field-manager "$FIELD_MANAGER" -f - >/dev/null <<<"$slices" ||
    { log "applying the DRA ResourceSlices failed"; return 1; }
}

# dra_devices_per_node: "node<TAB>what its slices hold" for the summary, e.g. "gpu.nvidia.com: 8 gpu" or
# "gpu.nvidia.com: 16 mig 1g.5gb, 8 mig 2g.10gb, 8 mig 3g.20gb".
dra_devices_per_node() {
  # shellcheck disable=SC2016 # go-template
  fk get resourceslices -o go-template='{{range .items}}{{$n := .spec.nodeName}}{{$d := .spec.driver}}{{range .spec.devices}}{{$n}}{{"\t"}}{{$d}}{{"\t"}}{{.attributes.type.string}}{{with .attributes.profile}} {{.string}}{{end}}{{"\n"}}{{end}}{{end}}' 2>/dev/null |
    sort | uniq -c | awk '
      { node = $2; driver = $3; kind = $4 ($5 == "" ? "" : " " $5) }
      node != last && last != "" { print last "\t" line; line = "" }
      { line = (line == "" ? driver ": " : line ", ") $1 " " kind; last = node }
      END { if (last != "") print last "\t" line }'
}
