package kube

// Project keeps, from the live object, only the fields present in the
// desired object: what this resource manages. Server defaults, status and
// fields set by other managers fall away, so only real drift remains.
// Lists of named items (containers, env, volumes) are matched by name;
// other lists by position, and extra live items are kept as drift.
func Project(live, desired map[string]any) map[string]any {
	out := make(map[string]any, len(desired))
	for key, want := range desired {
		got, ok := live[key]
		if !ok {
			continue
		}
		out[key] = projectValue(got, want)
	}
	return out
}

func projectValue(got, want any) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		return Project(g, w)
	case []any:
		g, ok := got.([]any)
		if !ok {
			return got
		}
		return projectList(g, w)
	default:
		return got
	}
}

func projectList(got, want []any) []any {
	byName := namedItems(want)
	out := make([]any, 0, len(got))
	for i, item := range got {
		var match any
		if byName != nil {
			match = byName[itemName(item)]
		} else if i < len(want) {
			match = want[i]
		}
		if match == nil {
			out = append(out, item)
			continue
		}
		out = append(out, projectValue(item, match))
	}
	return out
}

// namedItems indexes a list whose every item is a map with a "name" key.
func namedItems(list []any) map[string]any {
	if len(list) == 0 {
		return nil
	}
	index := make(map[string]any, len(list))
	for _, item := range list {
		name := itemName(item)
		if name == "" {
			return nil
		}
		index[name] = item
	}
	return index
}

func itemName(item any) string {
	m, ok := item.(map[string]any)
	if !ok {
		return ""
	}
	name, _ := m["name"].(string)
	return name
}
