package dra

// kueueDevicesName is the name part of the resource a ClusterQueue gives a
// DRA pool's quota in.
const kueueDevicesName = "devices"

// KueueResourceName is the logical resource Kueue counts a DRA pool's
// devices as: its Configuration's resources.deviceClassMappings maps the
// pool's DeviceClass to it, and the ClusterQueue's quota names it
// (docs/design/dra.md §3). Kueue wants a qualified name (an optional DNS
// subdomain prefix, a slash, a DNS label); the class name is such a
// subdomain, so the resource reads as "the devices of that class".
func KueueResourceName(deviceClass string) string { return deviceClass + "/" + kueueDevicesName }

// DeviceClassMapping is one entry of Kueue's resources.deviceClassMappings.
type DeviceClassMapping struct {
	Name             string   `json:"name"`
	DeviceClassNames []string `json:"deviceClassNames"`
}
