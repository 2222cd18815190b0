package dra

import (
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
)

// V1 is the claim in resource.k8s.io/v1 (Kubernetes 1.34+): a request's
// fields sit under exactly, the alternative being firstAvailable
// (docs/design/kubernetes.md#resourceclaimtemplate-shapes).
func (c Claim) V1() resourcev1.ResourceClaimSpec {
	request := resourcev1.DeviceRequest{Name: RequestName}
	if c.Exactly != nil {
		request.Exactly = &resourcev1.ExactDeviceRequest{
			DeviceClassName: c.Exactly.DeviceClass,
			Selectors:       selectorsV1(c.Exactly.Selectors),
			AllocationMode:  resourcev1.DeviceAllocationModeExactCount,
			Count:           c.Exactly.Count,
		}
	}
	for _, s := range c.FirstAvailable {
		request.FirstAvailable = append(request.FirstAvailable, resourcev1.DeviceSubRequest{
			Name:            s.Name,
			DeviceClassName: s.DeviceClass,
			Selectors:       selectorsV1(s.Selectors),
			AllocationMode:  resourcev1.DeviceAllocationModeExactCount,
			Count:           s.Count,
		})
	}
	out := resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{request}}}
	if c.MatchAttribute != "" {
		attribute := resourcev1.FullyQualifiedName(c.MatchAttribute)
		out.Devices.Constraints = []resourcev1.DeviceConstraint{{Requests: []string{RequestName}, MatchAttribute: &attribute}}
	}
	return out
}

// V1beta1 is the claim in resource.k8s.io/v1beta1 (1.32–1.33): the
// fields directly on the request. Its firstAvailable exists from 1.33 but
// behind the DRAPrioritizedList gate, alpha and off by default there (beta
// and on from 1.34, where v1 is served), so a 1.32–1.33 server drops it:
// callers refuse a claim with FirstAvailable before rendering it here.
func (c Claim) V1beta1() resourcev1beta1.ResourceClaimSpec {
	request := resourcev1beta1.DeviceRequest{Name: RequestName}
	if c.Exactly != nil {
		request.DeviceClassName = c.Exactly.DeviceClass
		request.Selectors = selectorsV1beta1(c.Exactly.Selectors)
		request.AllocationMode = resourcev1beta1.DeviceAllocationModeExactCount
		request.Count = c.Exactly.Count
	}
	for _, s := range c.FirstAvailable {
		request.FirstAvailable = append(request.FirstAvailable, resourcev1beta1.DeviceSubRequest{
			Name:            s.Name,
			DeviceClassName: s.DeviceClass,
			Selectors:       selectorsV1beta1(s.Selectors),
			AllocationMode:  resourcev1beta1.DeviceAllocationModeExactCount,
			Count:           s.Count,
		})
	}
	out := resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{Requests: []resourcev1beta1.DeviceRequest{request}}}
	if c.MatchAttribute != "" {
		attribute := resourcev1beta1.FullyQualifiedName(c.MatchAttribute)
		out.Devices.Constraints = []resourcev1beta1.DeviceConstraint{{Requests: []string{RequestName}, MatchAttribute: &attribute}}
	}
	return out
}

func selectorsV1(expressions []string) []resourcev1.DeviceSelector {
	var out []resourcev1.DeviceSelector
	for _, e := range expressions {
		out = append(out, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: e}})
	}
	return out
}

func selectorsV1beta1(expressions []string) []resourcev1beta1.DeviceSelector {
	var out []resourcev1beta1.DeviceSelector
	for _, e := range expressions {
		out = append(out, resourcev1beta1.DeviceSelector{CEL: &resourcev1beta1.CELDeviceSelector{Expression: e}})
	}
	return out
}
