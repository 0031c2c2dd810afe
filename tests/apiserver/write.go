package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"sigs.k8s.io/structured-merge-diff/fieldpath"
	"sigs.k8s.io/structured-merge-diff/merge"
	"sigs.k8s.io/structured-merge-diff/typed"
)

// managerID names a managedFields entry, as the API server keys them: the same manager
// applying and updating, or writing the main resource and the status, owns separate sets.
// An applier's key leaves out the API version, so its set follows it across versions.
type managerID struct {
	Manager     string `json:"manager"`
	Operation   string `json:"operation"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

func (id managerID) key() string {
	encoded, _ := json.Marshal(id)
	return string(encoded)
}

// entry is one element of metadata.managedFields.
type entry struct {
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation"`
	APIVersion  string          `json:"apiVersion"`
	Time        string          `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType"`
	FieldsV1    json.RawMessage `json:"fieldsV1"`
	Subresource string          `json:"subresource,omitempty"`
}

// write merges one apply or update into the live object, validates the result and
// answers with it.
func (s *server) write(req *request) response {
	id := managerID{Manager: req.Manager, Subresource: req.Subresource}
	switch req.Op {
	case "apply":
		id.Operation = "Apply"
	case "update":
		id.Operation = "Update"
		id.APIVersion = s.apiVersion
	default:
		return failure(400, "BadRequest", fmt.Sprintf("unknown op %q", req.Op))
	}
	live := req.Live
	if live == nil {
		live = map[string]interface{}{}
	}
	managers, times, err := decodeManagedFields(live)
	if err != nil {
		return failure(500, "InternalError", err.Error())
	}
	liveTyped, err := s.objectType.FromUnstructured(withoutManagedFields(live))
	if err != nil {
		return failure(500, "InternalError", "the stored object does not fit the schema: "+err.Error())
	}
	incoming := withoutManagedFields(req.Object)
	if meta, ok := incoming["metadata"].(map[string]interface{}); ok {
		// The precondition is the stand-in's; it is not a field anybody owns.
		delete(meta, "resourceVersion")
	}
	incomingTyped, err := s.objectType.FromUnstructured(incoming)
	if err != nil {
		return failure(400, "BadRequest", "failed to create typed patch object: "+err.Error())
	}
	updater := merge.Updater{Converter: sameVersion{}}
	version := fieldpath.APIVersion(s.apiVersion)
	var merged *typed.TypedValue
	if id.Operation == "Apply" {
		merged, managers, err = updater.Apply(liveTyped, incomingTyped, version, managers, id.key(), req.Force)
		if merged == nil && err == nil {
			merged = liveTyped // Apply answers nil when the object did not change.
		}
	} else {
		merged, managers, err = updater.Update(liveTyped, incomingTyped, version, managers, id.key())
	}
	if conflicts, ok := err.(merge.Conflicts); ok {
		return conflictStatus(conflicts)
	}
	if err != nil {
		return failure(500, "InternalError", err.Error())
	}
	object, err := normalized(merged.AsValue().Unstructured())
	if err != nil {
		return failure(500, "InternalError", err.Error())
	}
	object = s.keepOwnPart(live, object, req.Subresource)
	for key, set := range managers {
		managers[key] = fieldpath.NewVersionedSet(
			set.Set().RecursiveDifference(stripped(req.Subresource, key)),
			set.APIVersion(), set.Applied())
		// A manager left owning nothing loses its entry (an empty apply releases all).
		if managers[key].Set().Empty() {
			delete(managers, key)
		}
	}
	if causes := s.validate(object); len(causes) > 0 {
		return s.invalid(object, causes)
	}
	oldManagers, _, _ := decodeManagedFields(live)
	changed := !sameJSON(withoutManagedFields(live), object) || !managers.Equals(oldManagers)
	if changed {
		times[id.key()] = req.Now
	}
	encoded, err := encodeManagedFields(managers, times)
	if err != nil {
		return failure(500, "InternalError", err.Error())
	}
	if !changed {
		return response{Code: 200, Object: live}
	}
	if meta, ok := object["metadata"].(map[string]interface{}); ok {
		if len(encoded) > 0 {
			meta["managedFields"] = encoded
		} else {
			delete(meta, "managedFields")
		}
	}
	return response{Code: 200, Object: object, Changed: true}
}

// keepOwnPart does what the custom resource strategies do: a write to /status changes only
// the status, a write to the main resource everything but the status.
func (s *server) keepOwnPart(live, merged map[string]interface{}, subresource string) map[string]interface{} {
	out := map[string]interface{}{}
	if subresource == "status" {
		for key, value := range withoutManagedFields(live) {
			out[key] = value
		}
		delete(out, "status")
		if merged["status"] != nil {
			out["status"] = merged["status"]
		}
		return out
	}
	for key, value := range merged {
		out[key] = value
	}
	delete(out, "status")
	if live["status"] != nil {
		out["status"] = live["status"]
	}
	return out
}

// stripped is what no manager of a write to `subresource` is recorded as owning: the
// identity and system fields of metadata (the API server's own stripping), and the part of
// the object the write does not change (the status strategy resets the spec; the main
// resource's resets the status).
func stripped(subresource, key string) *fieldpath.Set {
	var id managerID
	_ = json.Unmarshal([]byte(key), &id)
	set := fieldpath.NewSet(
		fieldpath.MakePathOrDie("apiVersion"),
		fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata", "name"),
		fieldpath.MakePathOrDie("metadata", "namespace"),
		fieldpath.MakePathOrDie("metadata", "uid"),
		fieldpath.MakePathOrDie("metadata", "generation"),
		fieldpath.MakePathOrDie("metadata", "resourceVersion"),
		fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
		fieldpath.MakePathOrDie("metadata", "managedFields"),
	)
	if id.Subresource == "status" {
		set.Insert(fieldpath.MakePathOrDie("spec"))
		set.Insert(fieldpath.MakePathOrDie("metadata"))
	} else {
		set.Insert(fieldpath.MakePathOrDie("status"))
	}
	return set
}

// normalized is `value` as encoding/json reads it (numbers as float64, like the live
// object), so that objects compare by content.
func normalized(value interface{}) (map[string]interface{}, error) {
	encoded, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	var object map[string]interface{}
	err = json.Unmarshal(encoded, &object)
	return object, err
}

func sameJSON(a, b map[string]interface{}) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// sameVersion is the updater's converter: the stand-in serves one version.
type sameVersion struct{}

func (sameVersion) Convert(object *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return object, nil
}

func (sameVersion) IsMissingVersionError(error) bool { return false }

func withoutManagedFields(object map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for key, value := range object {
		out[key] = value
	}
	if meta, ok := object["metadata"].(map[string]interface{}); ok {
		copied := map[string]interface{}{}
		for key, value := range meta {
			if key != "managedFields" {
				copied[key] = value
			}
		}
		out["metadata"] = copied
	}
	return out
}

// decodeManagedFields reads metadata.managedFields into structured-merge-diff's sets, and
// each entry's time.
func decodeManagedFields(object map[string]interface{}) (fieldpath.ManagedFields, map[string]string, error) {
	managers := fieldpath.ManagedFields{}
	times := map[string]string{}
	meta, _ := object["metadata"].(map[string]interface{})
	raw, err := json.Marshal(meta["managedFields"])
	if err != nil {
		return nil, nil, err
	}
	var entries []entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("managedFields: %v", err)
	}
	for _, e := range entries {
		id := managerID{Manager: e.Manager, Operation: e.Operation, Subresource: e.Subresource}
		if e.Operation == "Update" {
			id.APIVersion = e.APIVersion
		}
		set := fieldpath.NewSet()
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1)); err != nil {
			return nil, nil, fmt.Errorf("managedFields of %q: %v", e.Manager, err)
		}
		managers[id.key()] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == "Apply")
		times[id.key()] = e.Time
	}
	return managers, times, nil
}

// encodeManagedFields writes the sets back as FieldsV1 entries, in the API server's order:
// appliers first, then by time, then by manager.
func encodeManagedFields(managers fieldpath.ManagedFields, times map[string]string) ([]entry, error) {
	var entries []entry
	for key, set := range managers {
		var id managerID
		if err := json.Unmarshal([]byte(key), &id); err != nil {
			return nil, err
		}
		fields, err := set.Set().ToJSON()
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{
			Manager: id.Manager, Operation: id.Operation, APIVersion: string(set.APIVersion()),
			Time: times[key], FieldsType: "FieldsV1", FieldsV1: fields, Subresource: id.Subresource,
		})
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.Operation != b.Operation {
			return a.Operation < b.Operation
		}
		if a.Time != b.Time {
			return a.Time < b.Time
		}
		if a.Manager != b.Manager {
			return a.Manager < b.Manager
		}
		return a.Subresource < b.Subresource
	})
	return entries, nil
}

// cause is one element of a Status's details.causes.
type cause struct {
	Type    string `json:"reason"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// status is the API server's metav1.Status body.
type status struct {
	Kind       string                 `json:"kind"`
	APIVersion string                 `json:"apiVersion"`
	Metadata   map[string]interface{} `json:"metadata"`
	Status     string                 `json:"status"`
	Message    string                 `json:"message"`
	Reason     string                 `json:"reason"`
	Details    *details               `json:"details,omitempty"`
	Code       int                    `json:"code"`
}

type details struct {
	Name   string  `json:"name,omitempty"`
	Group  string  `json:"group,omitempty"`
	Kind   string  `json:"kind,omitempty"`
	Causes []cause `json:"causes,omitempty"`
}

func failure(code int, reason, message string) response {
	return response{Code: code, Status: &status{
		Kind: "Status", APIVersion: "v1", Metadata: map[string]interface{}{},
		Status: "Failure", Message: message, Reason: reason, Code: code,
	}}
}

// conflictStatus is the 409 of an apply that would take fields from other managers
// without force: one cause per field, naming its manager.
func conflictStatus(conflicts merge.Conflicts) response {
	var causes []cause
	var lines []string
	for _, c := range conflicts {
		var id managerID
		name := c.Manager
		if json.Unmarshal([]byte(c.Manager), &id) == nil {
			name = fmt.Sprintf("%q", id.Manager)
			if id.Subresource != "" {
				name += fmt.Sprintf(" with subresource %q", id.Subresource)
			}
			if id.Operation == "Update" {
				name += " using " + id.APIVersion
			}
		}
		message := "conflict with " + name
		causes = append(causes, cause{Type: "FieldManagerConflict", Message: message, Field: c.Path.String()})
		lines = append(lines, message+": "+c.Path.String())
	}
	plural := "conflict"
	if len(conflicts) > 1 {
		plural = "conflicts"
	}
	answer := failure(409, "Conflict", fmt.Sprintf("Apply failed with %d %s: %s", len(conflicts), plural, strings.Join(lines, "\n")))
	answer.Status.Details = &details{Causes: causes}
	return answer
}

// validate checks the object against the CRD version's schema with kube-openapi and
// names each violation as the API server's field errors do.
func (s *server) validate(object map[string]interface{}) []cause {
	result := s.validator.Validate(object)
	var causes []cause
	for _, err := range result.Errors {
		causes = append(causes, fieldError(err)...)
	}
	sort.Slice(causes, func(i, j int) bool {
		if causes[i].Field != causes[j].Field {
			return causes[i].Field < causes[j].Field
		}
		return causes[i].Message < causes[j].Message
	})
	return causes
}

var maxLength = regexp.MustCompile(`at most (\d+) chars`)

// fieldError turns one of kube-openapi's errors into the API server's field error: the
// type of cause, and the message after the field.
func fieldError(err error) []cause {
	if composite, ok := err.(*openapierrors.CompositeError); ok {
		var out []cause
		for _, inner := range composite.Errors {
			out = append(out, fieldError(inner)...)
		}
		return out
	}
	v, ok := err.(*openapierrors.Validation)
	if !ok {
		return []cause{{Type: "FieldValueInvalid", Message: "Invalid value: \"\": " + err.Error()}}
	}
	field := strings.TrimPrefix(v.Name, ".")
	switch v.Code() {
	case openapierrors.RequiredFailCode:
		return []cause{{Type: "FieldValueRequired", Message: "Required value", Field: field}}
	case openapierrors.EnumFailCode:
		var allowed []string
		for _, value := range v.Values {
			allowed = append(allowed, quote(value))
		}
		return []cause{{Type: "FieldValueNotSupported", Field: field, Message: fmt.Sprintf(
			"Unsupported value: %s: supported values: %s", quote(v.Value), strings.Join(allowed, ", "))}}
	case openapierrors.TooLongFailCode:
		limit := "?"
		if m := maxLength.FindStringSubmatch(v.Error()); m != nil {
			limit = m[1]
		}
		return []cause{{Type: "FieldValueTooLong", Field: field, Message: "Too long: may not be longer than " + limit}}
	case openapierrors.InvalidTypeCode:
		return []cause{{Type: "FieldValueTypeInvalid", Field: field, Message: fmt.Sprintf("Invalid value: %s: %s", quote(v.Value), v.Error())}}
	default:
		return []cause{{Type: "FieldValueInvalid", Field: field, Message: fmt.Sprintf("Invalid value: %s: %s", quote(v.Value), v.Error())}}
	}
}

// quote prints a value as field errors do: strings quoted, the rest as JSON.
func quote(value interface{}) string {
	if text, ok := value.(string); ok {
		return fmt.Sprintf("%q", text)
	}
	encoded, _ := json.Marshal(value)
	return string(encoded)
}

// invalid is the 422 of an object that breaks the schema: `<Kind>.<group> "<name>" is
// invalid: <field>: <message>`, several in brackets, with one cause per violation.
func (s *server) invalid(object map[string]interface{}, causes []cause) response {
	meta, _ := object["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	var parts []string
	for _, c := range causes {
		parts = append(parts, c.Field+": "+c.Message)
	}
	summary := parts[0]
	if len(parts) > 1 {
		summary = "[" + strings.Join(parts, ", ") + "]"
	}
	qualified := s.kind + "." + s.group
	answer := failure(422, "Invalid", fmt.Sprintf("%s %q is invalid: %s", qualified, name, summary))
	answer.Status.Details = &details{Name: name, Group: s.group, Kind: s.kind, Causes: causes}
	return answer
}
