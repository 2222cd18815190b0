package dra

import (
	"slices"
	"time"
)

// ClassRef is a DeviceClass as the extended-resource mapping sees it.
type ClassRef struct {
	Name    string
	Created time.Time
}

// ExtendedResourceOwner is the class the scheduler serves an extended
// resource from when several DeviceClasses carry it as
// extendedResourceName: the newest, and of classes created at the same
// time the name sorted first (the DeviceClassSpec.ExtendedResourceName
// API comment; k8s.io/dynamic-resource-allocation's extended resource
// cache, docs/design/dra-versions.md#3-charts-and-hand-written-pods-on-dra-pools).
// "" for no class.
func ExtendedResourceOwner(classes []ClassRef) string {
	if len(classes) == 0 {
		return ""
	}
	return slices.MinFunc(classes, func(a, b ClassRef) int {
		switch {
		case a.Created.After(b.Created):
			return -1
		case b.Created.After(a.Created):
			return 1
		case a.Name < b.Name:
			return -1
		case b.Name < a.Name:
			return 1
		}
		return 0
	}).Name
}
