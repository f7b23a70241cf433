package lifecycle

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// S3Namespace is the XML namespace of S3 API documents. Parse accepts
// elements in it or in no namespace.
const S3Namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

// Limits per the AWS lifecycle docs (PutBucketLifecycleConfiguration,
// LifecycleRule, Tag, NoncurrentVersionExpiration).
const (
	MaxRules                   = 1000 // rules per configuration
	MaxRuleIDLen               = 255  // characters in a rule ID
	MaxTagKeyLen               = 128  // characters in a tag key
	MaxTagValueLen             = 256  // characters in a tag value
	MaxNewerNoncurrentVersions = 100  // NoncurrentVersionExpiration/NewerNoncurrentVersions
	// MinInfrequentAccessDays is the least Days (NoncurrentDays) a
	// transition to STANDARD_IA or ONEZONE_IA may give.
	MinInfrequentAccessDays = 30
)

// TransitionStorageClasses are the classes a Transition or
// NoncurrentVersionTransition may name (the S3 TransitionStorageClass
// enumeration).
var TransitionStorageClasses = []string{"GLACIER", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "DEEP_ARCHIVE", "GLACIER_IR"}

// infrequentAccess are the classes S3 lets an object enter only after
// MinInfrequentAccessDays.
func infrequentAccess(class string) bool { return class == "STANDARD_IA" || class == "ONEZONE_IA" }

// Parse decodes an S3 LifecycleConfiguration document (root
// LifecycleConfiguration or BucketLifecycleConfiguration, with or without
// the S3 namespace) and validates it strictly, per the AWS lifecycle docs.
// It refuses rather than defaults: unknown or repeated elements, out of
// range values and combinations S3 rejects all fail with an *Error naming
// the rule. Transition and NoncurrentVersionTransition actions are validated
// the same way and kept in the Rule; ilmctl never executes them, and a rule
// whose only actions are transitions is valid and deletes nothing.
//
// The document may begin with a UTF-8 byte order mark and an XML
// declaration; a declared encoding other than UTF-8 or US-ASCII (any case)
// is MalformedXML. Parse is the one judge of a lifecycle document: the
// fixture loader and every pass use it. Parse is pure: no clock, no I/O.
func Parse(data []byte) (*Configuration, error) {
	doc, root, err := decodeDocument(data)
	if err != nil {
		return nil, err
	}
	if e := doc.check(root); e != nil {
		return nil, e
	}
	switch {
	case len(doc.Rules) == 0:
		return nil, malformed("configuration has no <Rule>; at least one is required")
	case len(doc.Rules) > MaxRules:
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(
			"configuration has %d rules; at most %d are allowed", len(doc.Rules), MaxRules)}
	}
	cfg := &Configuration{Rules: make([]Rule, 0, len(doc.Rules))}
	firstByID := make(map[string]int, len(doc.Rules))
	for i := range doc.Rules {
		rule, err := doc.Rules[i].v.validate(i + 1)
		if err != nil {
			return nil, err
		}
		if rule.ID != "" {
			if first, dup := firstByID[rule.ID]; dup {
				return nil, &Error{Code: CodeInvalidArgument, RuleID: rule.ID, RuleIndex: i + 1, Message: fmt.Sprintf(
					"rule ID must be unique; rule #%d has the same ID", first)}
			}
			firstByID[rule.ID] = i + 1
		}
		cfg.Rules = append(cfg.Rules, rule)
	}
	return cfg, nil
}

// decodeDocument reads exactly one root element and returns its local name.
// Anything but whitespace, comments and processing instructions around it is
// MalformedXML. DTDs are refused outright: S3 never sends one, and refusing
// them keeps entity tricks out.
func decodeDocument(data []byte) (doc *xmlConfiguration, root string, err error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charsetReader
	for first := true; ; first = false {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if doc == nil {
				return nil, "", malformed("document has no root element")
			}
			return doc, root, nil
		}
		if err != nil {
			return nil, "", wrapSyntaxError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if doc != nil {
				return nil, "", malformed("element <%s> after the root element", t.Name.Local)
			}
			root = t.Name.Local
			if root != "LifecycleConfiguration" && root != "BucketLifecycleConfiguration" {
				return nil, "", malformed("root element is <%s>, want <LifecycleConfiguration> or <BucketLifecycleConfiguration>", root)
			}
			if e := checkNamespace(t.Name); e != nil {
				return nil, "", e
			}
			doc = new(xmlConfiguration)
			if err := d.DecodeElement(doc, &t); err != nil {
				return nil, "", wrapSyntaxError(err)
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, "", malformed("text outside the root element")
			}
		case xml.Directive:
			return nil, "", malformed("DTDs and other <!...> directives are not allowed")
		case xml.ProcInst:
			// encoding/xml reads a declaration wherever it is; XML 1.0
			// allows one only at the very start.
			if strings.EqualFold(t.Target, "xml") && !first {
				return nil, "", malformed("the XML declaration <?xml ...?> must come first in the document")
			}
		}
	}
}

// utf8BOM is the byte order mark some editors and SDKs put before a UTF-8
// document.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// charsetReader is called by encoding/xml for a declared encoding other
// than UTF-8 (which it reads itself, in any case). US-ASCII is UTF-8's
// subset, read as is but refusing any byte outside it; every other
// encoding is refused, naming it.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	if strings.EqualFold(label, "us-ascii") {
		return &asciiReader{r: input}, nil
	}
	return nil, malformed("the document declares encoding %q; a lifecycle configuration must be UTF-8 or US-ASCII", label)
}

// asciiReader passes US-ASCII through and fails on the first byte outside
// it.
type asciiReader struct{ r io.Reader }

func (a *asciiReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	for i := range p[:n] {
		if p[i] >= utf8.RuneSelf {
			return i, malformed("byte 0x%02X is not US-ASCII, the encoding the document declares", p[i])
		}
	}
	return n, err
}

// wrapSyntaxError keeps our own *Error (a repeated element found mid-decode)
// and wraps anything else from encoding/xml as MalformedXML.
func wrapSyntaxError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return malformed("%v", err)
}

func malformed(format string, args ...any) *Error {
	return &Error{Code: CodeMalformedXML, Message: fmt.Sprintf(format, args...)}
}

// The xml* types mirror the S3 schema. Scalars are kept as text so that
// absence, emptiness and bad values stay distinguishable until validation,
// which knows the rule and can name it.

type xmlConfiguration struct {
	strict
	Rules []one[xmlRule] `xml:"Rule"`
}

type xmlRule struct {
	strict
	ID                          one[string]                         `xml:"ID"`
	Status                      one[string]                         `xml:"Status"`
	Prefix                      one[string]                         `xml:"Prefix"` // legacy, pre-Filter
	Filter                      one[xmlFilter]                      `xml:"Filter"`
	Expiration                  one[xmlExpiration]                  `xml:"Expiration"`
	NoncurrentVersionExpiration one[xmlNoncurrentVersionExpiration] `xml:"NoncurrentVersionExpiration"`
	AbortIncompleteMultipart    one[xmlAbortIncompleteMultipart]    `xml:"AbortIncompleteMultipartUpload"`
	Transitions                 []one[xmlTransition]                `xml:"Transition"`
	NoncurrentTransitions       []one[xmlNoncurrentTransition]      `xml:"NoncurrentVersionTransition"`
}

type xmlFilter struct {
	strict
	Prefix                one[string] `xml:"Prefix"`
	Tag                   one[xmlTag] `xml:"Tag"`
	And                   one[xmlAnd] `xml:"And"`
	ObjectSizeGreaterThan one[string] `xml:"ObjectSizeGreaterThan"`
	ObjectSizeLessThan    one[string] `xml:"ObjectSizeLessThan"`
}

type xmlAnd struct {
	strict
	Prefix                one[string]   `xml:"Prefix"`
	Tags                  []one[xmlTag] `xml:"Tag"`
	ObjectSizeGreaterThan one[string]   `xml:"ObjectSizeGreaterThan"`
	ObjectSizeLessThan    one[string]   `xml:"ObjectSizeLessThan"`
}

type xmlTag struct {
	strict
	Key   one[string] `xml:"Key"`
	Value one[string] `xml:"Value"`
}

type xmlExpiration struct {
	strict
	Date                      one[string] `xml:"Date"`
	Days                      one[string] `xml:"Days"`
	ExpiredObjectDeleteMarker one[string] `xml:"ExpiredObjectDeleteMarker"`
}

type xmlNoncurrentVersionExpiration struct {
	strict
	NoncurrentDays          one[string] `xml:"NoncurrentDays"`
	NewerNoncurrentVersions one[string] `xml:"NewerNoncurrentVersions"`
}

type xmlAbortIncompleteMultipart struct {
	strict
	DaysAfterInitiation one[string] `xml:"DaysAfterInitiation"`
}

// Transitions are validated like every other action; ilmctl does not run
// them.
type xmlTransition struct {
	strict
	Date         one[string] `xml:"Date"`
	Days         one[string] `xml:"Days"`
	StorageClass one[string] `xml:"StorageClass"`
}

type xmlNoncurrentTransition struct {
	strict
	NoncurrentDays          one[string] `xml:"NoncurrentDays"`
	NewerNoncurrentVersions one[string] `xml:"NewerNoncurrentVersions"`
	StorageClass            one[string] `xml:"StorageClass"`
}

// strict is embedded in every element type. It records what encoding/xml
// would otherwise drop silently (unknown children, stray text) so check can
// refuse them, as S3 does with MalformedXML. Namespaces are checked by one
// and by decodeDocument, since encoding/xml cannot fill an XMLName promoted from an
// unexported embedded struct.
type strict struct {
	Unknown []struct {
		XMLName xml.Name
	} `xml:",any"`
	Text string `xml:",chardata"`
}

func (s *strict) check(where string) *Error {
	if len(s.Unknown) > 0 {
		return malformed("unknown element <%s> in <%s>", s.Unknown[0].XMLName.Local, where)
	}
	if strings.TrimSpace(s.Text) != "" {
		return malformed("unexpected text in <%s>", where)
	}
	return nil
}

func checkNamespace(n xml.Name) *Error {
	if n.Space != "" && n.Space != S3Namespace {
		return malformed("element <%s> is in namespace %q, want %q or none", n.Local, n.Space, S3Namespace)
	}
	return nil
}

// one is an element that may appear at most once. encoding/xml lets a
// repeated element overwrite the first; S3's schema does not, so a repeat
// fails the decode with MalformedXML and its line. In a slice (repeatable
// elements) each item is fresh, so one only checks the namespace there.
type one[T any] struct {
	set bool
	v   T
}

func (o *one[T]) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	if o.set {
		line, _ := d.InputPos()
		return malformed("element <%s> appears more than once (line %d)", start.Name.Local, line)
	}
	if e := checkNamespace(start.Name); e != nil {
		return e
	}
	if err := d.DecodeElement(&o.v, &start); err != nil {
		return err
	}
	o.set = true
	return nil
}

// ruleRef names the rule under validation in its errors.
type ruleRef struct {
	id    string
	index int // 1-based
}

func (r ruleRef) errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, RuleID: r.id, RuleIndex: r.index, Message: fmt.Sprintf(format, args...)}
}

// validate turns one decoded rule into a Rule, index being its 1-based
// position. Structure is checked before values and values before
// combinations, so the error an operator sees is the most basic one.
func (x *xmlRule) validate(index int) (Rule, error) {
	ref := ruleRef{id: x.ID.v, index: index}
	if err := x.checkStructure(ref); err != nil {
		return Rule{}, err
	}
	if n := utf8.RuneCountInString(ref.id); n > MaxRuleIDLen {
		return Rule{}, ref.errorf(CodeInvalidArgument, "ID is %d characters; at most %d are allowed", n, MaxRuleIDLen)
	}
	rule := Rule{ID: ref.id}

	// Status is a schema enumeration, so a wrong spelling is MalformedXML.
	switch {
	case !x.Status.set:
		return Rule{}, ref.errorf(CodeMalformedXML, "missing <Status>; want Enabled or Disabled")
	case x.Status.v == "Enabled":
		rule.Enabled = true
	case x.Status.v == "Disabled":
	default:
		return Rule{}, ref.errorf(CodeMalformedXML, "Status is %q; want exactly Enabled or Disabled", x.Status.v)
	}

	var err error
	switch {
	case x.Prefix.set && x.Filter.set:
		return Rule{}, ref.errorf(CodeMalformedXML, "both <Prefix> and <Filter> are set; use only <Filter>")
	case x.Prefix.set:
		rule.Filter.Prefix = x.Prefix.v
	case x.Filter.set:
		if rule.Filter, err = x.Filter.v.validate(ref); err != nil {
			return Rule{}, err
		}
	default:
		// Per the AWS LifecycleRule docs, Filter is required when Prefix is absent.
		return Rule{}, ref.errorf(CodeMalformedXML, "missing <Filter>; use <Filter></Filter> to select every object")
	}

	if x.Expiration.set {
		if err := x.Expiration.v.validate(ref, &rule); err != nil {
			return Rule{}, err
		}
	}
	if x.NoncurrentVersionExpiration.set {
		if err := x.NoncurrentVersionExpiration.v.validate(ref, &rule); err != nil {
			return Rule{}, err
		}
	}
	if x.AbortIncompleteMultipart.set {
		a := &x.AbortIncompleteMultipart.v
		if !a.DaysAfterInitiation.set {
			return Rule{}, ref.errorf(CodeMalformedXML, "<AbortIncompleteMultipartUpload> needs <DaysAfterInitiation>")
		}
		if rule.AbortMPUDays, err = positiveDays(ref, "AbortIncompleteMultipartUpload DaysAfterInitiation", a.DaysAfterInitiation.v); err != nil {
			return Rule{}, err
		}
	}

	if err := x.validateTransitions(ref, &rule); err != nil {
		return Rule{}, err
	}

	// S3 evaluates tags on objects only: delete markers and multipart
	// uploads carry none, so it refuses these combinations (InvalidRequest).
	if len(rule.Filter.Tags) > 0 {
		if rule.ExpiredObjectDeleteMarker {
			return Rule{}, ref.errorf(CodeInvalidRequest, "ExpiredObjectDeleteMarker cannot be combined with a tag filter")
		}
		if rule.AbortMPUDays > 0 {
			return Rule{}, ref.errorf(CodeInvalidRequest, "AbortIncompleteMultipartUpload cannot be combined with a tag filter")
		}
	}

	if len(rule.Actions()) == 0 && len(rule.Transitions) == 0 && len(rule.NoncurrentTransitions) == 0 {
		return Rule{}, ref.errorf(CodeInvalidRequest,
			"at least one action is required: Expiration, NoncurrentVersionExpiration, AbortIncompleteMultipartUpload, Transition or NoncurrentVersionTransition")
	}
	return rule, nil
}

// validateTransitions checks the rule's Transition and
// NoncurrentVersionTransition actions and how they combine with its
// expirations, per the AWS Transition and NoncurrentVersionTransition docs:
// Days (NoncurrentDays) 0 or more, at least MinInfrequentAccessDays into
// STANDARD_IA or ONEZONE_IA, or a midnight-UTC Date; one StorageClass per
// action of a kind; no Date-based beside Days-based timing; and an
// expiration later than every transition of its kind. rule's expirations
// are already validated.
func (x *xmlRule) validateTransitions(ref ruleRef, rule *Rule) error {
	classes := map[string]bool{}
	byDays, byDate := rule.ExpirationDays > 0, !rule.ExpirationDate.IsZero()
	for i := range x.Transitions {
		t, err := x.Transitions[i].v.validate(ref)
		if err != nil {
			return err
		}
		if classes[t.StorageClass] {
			return ref.errorf(CodeInvalidRequest, "two Transition actions name StorageClass %s; each must name a different class", t.StorageClass)
		}
		classes[t.StorageClass] = true
		if t.Date.IsZero() {
			byDays = true
		} else {
			byDate = true
		}
		if byDays && byDate {
			return ref.errorf(CodeInvalidRequest, "Date-based and Days-based Expiration and Transition actions are mixed; use one kind of timing in a rule")
		}
		switch {
		case rule.ExpirationDays > 0 && rule.ExpirationDays <= t.Days:
			return ref.errorf(CodeInvalidArgument, "Expiration Days (%d) must be greater than the Days of every Transition (%s has %d)", rule.ExpirationDays, t.StorageClass, t.Days)
		case !rule.ExpirationDate.IsZero() && !rule.ExpirationDate.After(t.Date):
			return ref.errorf(CodeInvalidArgument, "Expiration Date (%s) must be later than the Date of every Transition (%s has %s)",
				rule.ExpirationDate.Format(time.DateOnly), t.StorageClass, t.Date.Format(time.DateOnly))
		}
		rule.Transitions = append(rule.Transitions, t)
	}
	clear(classes)
	for i := range x.NoncurrentTransitions {
		t, err := x.NoncurrentTransitions[i].v.validate(ref)
		if err != nil {
			return err
		}
		if classes[t.StorageClass] {
			return ref.errorf(CodeInvalidRequest, "two NoncurrentVersionTransition actions name StorageClass %s; each must name a different class", t.StorageClass)
		}
		classes[t.StorageClass] = true
		if rule.NoncurrentDays > 0 && rule.NoncurrentDays <= t.NoncurrentDays {
			return ref.errorf(CodeInvalidArgument, "NoncurrentVersionExpiration NoncurrentDays (%d) must be greater than the NoncurrentDays of every NoncurrentVersionTransition (%s has %d)",
				rule.NoncurrentDays, t.StorageClass, t.NoncurrentDays)
		}
		rule.NoncurrentTransitions = append(rule.NoncurrentTransitions, t)
	}
	return nil
}

// validate checks one Transition: exactly one of Days and Date (a schema
// choice, so anything else is MalformedXML) and a StorageClass.
func (t *xmlTransition) validate(ref ruleRef) (Transition, error) {
	var out Transition
	var err error
	switch {
	case t.Days.set && t.Date.set:
		return out, ref.errorf(CodeMalformedXML, "Transition has both Days and Date; use one")
	case !t.Days.set && !t.Date.set:
		return out, ref.errorf(CodeMalformedXML, "<Transition> needs Days or Date")
	}
	if out.StorageClass, err = storageClass(ref, TransitionElement, t.StorageClass); err != nil {
		return out, err
	}
	if t.Date.set {
		out.Date, err = parseMidnightUTC(ref, "Transition Date", t.Date.v)
		return out, err
	}
	out.Days, err = transitionDays(ref, "Transition Days", out.StorageClass, t.Days.v)
	return out, err
}

// validate checks one NoncurrentVersionTransition: NoncurrentDays and a
// StorageClass are required, NewerNoncurrentVersions is optional (1..100).
func (t *xmlNoncurrentTransition) validate(ref ruleRef) (NoncurrentTransition, error) {
	var out NoncurrentTransition
	var err error
	if !t.NoncurrentDays.set {
		return out, ref.errorf(CodeMalformedXML, "<NoncurrentVersionTransition> needs <NoncurrentDays>")
	}
	if out.StorageClass, err = storageClass(ref, NoncurrentTransitionElement, t.StorageClass); err != nil {
		return out, err
	}
	if out.NoncurrentDays, err = transitionDays(ref, "NoncurrentVersionTransition NoncurrentDays", out.StorageClass, t.NoncurrentDays.v); err != nil {
		return out, err
	}
	if t.NewerNoncurrentVersions.set {
		v, err := parseIntElement(ref, "NoncurrentVersionTransition NewerNoncurrentVersions", t.NewerNoncurrentVersions.v, 32)
		if err != nil {
			return out, err
		}
		if v < 1 || v > MaxNewerNoncurrentVersions {
			return out, ref.errorf(CodeInvalidArgument, "NoncurrentVersionTransition NewerNoncurrentVersions is %d; it must be between 1 and %d", v, MaxNewerNoncurrentVersions)
		}
		out.NewerNoncurrentVersions = int(v)
	}
	return out, nil
}

// storageClass checks a transition's StorageClass, a schema enumeration
// (so a value outside it is MalformedXML).
func storageClass(ref ruleRef, element string, c one[string]) (string, error) {
	switch {
	case !c.set:
		return "", ref.errorf(CodeMalformedXML, "<%s> needs <StorageClass>", element)
	case !slices.Contains(TransitionStorageClasses, c.v):
		return "", ref.errorf(CodeMalformedXML, "%s StorageClass is %q; want one of %s", element, c.v, strings.Join(TransitionStorageClasses, ", "))
	}
	return c.v, nil
}

// transitionDays parses a transition's day count: 0 or more, at most
// MaxDays, and at least MinInfrequentAccessDays into an infrequent-access
// class.
func transitionDays(ref ruleRef, field, class, s string) (int, error) {
	v, err := parseIntElement(ref, field, s, 32)
	if err != nil {
		return 0, err
	}
	switch {
	case v < 0:
		return 0, ref.errorf(CodeInvalidArgument, "%s is %d; it must be 0 or more", field, v)
	case v > MaxDays:
		return 0, ref.errorf(CodeInvalidArgument, "%s is %d; ilmctl accepts at most %d days", field, v, MaxDays)
	case infrequentAccess(class) && v < MinInfrequentAccessDays:
		return 0, ref.errorf(CodeInvalidArgument, "%s is %d for StorageClass %s; it must be %d or more", field, v, class, MinInfrequentAccessDays)
	}
	return int(v), nil
}

// checkStructure refuses unknown elements, stray text and foreign
// namespaces anywhere inside the rule.
func (x *xmlRule) checkStructure(ref ruleRef) error {
	type scope struct {
		s     *strict
		where string
	}
	scopes := []scope{{&x.strict, "Rule"}}
	if x.Filter.set {
		f := &x.Filter.v
		scopes = append(scopes, scope{&f.strict, "Filter"})
		if f.Tag.set {
			scopes = append(scopes, scope{&f.Tag.v.strict, "Tag"})
		}
		if f.And.set {
			scopes = append(scopes, scope{&f.And.v.strict, "And"})
			for i := range f.And.v.Tags {
				scopes = append(scopes, scope{&f.And.v.Tags[i].v.strict, "Tag"})
			}
		}
	}
	if x.Expiration.set {
		scopes = append(scopes, scope{&x.Expiration.v.strict, "Expiration"})
	}
	if x.NoncurrentVersionExpiration.set {
		scopes = append(scopes, scope{&x.NoncurrentVersionExpiration.v.strict, "NoncurrentVersionExpiration"})
	}
	if x.AbortIncompleteMultipart.set {
		scopes = append(scopes, scope{&x.AbortIncompleteMultipart.v.strict, "AbortIncompleteMultipartUpload"})
	}
	for i := range x.Transitions {
		scopes = append(scopes, scope{&x.Transitions[i].v.strict, "Transition"})
	}
	for i := range x.NoncurrentTransitions {
		scopes = append(scopes, scope{&x.NoncurrentTransitions[i].v.strict, "NoncurrentVersionTransition"})
	}
	for _, sc := range scopes {
		if e := sc.s.check(sc.where); e != nil {
			return ref.errorf(e.Code, "%s", e.Message)
		}
	}
	return nil
}

// validate checks a Filter: per the AWS LifecycleRuleFilter docs it holds at
// most one of Prefix, Tag, And, ObjectSizeGreaterThan, ObjectSizeLessThan
// (a schema choice, so more is MalformedXML); an empty Filter selects every
// object.
func (f *xmlFilter) validate(ref ruleRef) (Filter, error) {
	var names []string
	for _, p := range []struct {
		set  bool
		name string
	}{
		{f.Prefix.set, "Prefix"},
		{f.Tag.set, "Tag"},
		{f.And.set, "And"},
		{f.ObjectSizeGreaterThan.set, "ObjectSizeGreaterThan"},
		{f.ObjectSizeLessThan.set, "ObjectSizeLessThan"},
	} {
		if p.set {
			names = append(names, p.name)
		}
	}
	if len(names) > 1 {
		return Filter{}, ref.errorf(CodeMalformedXML,
			"<Filter> holds %s; it takes at most one of them, combine predicates with <And>", strings.Join(names, ", "))
	}

	var out Filter
	switch {
	case f.Prefix.set:
		out.Prefix = f.Prefix.v
	case f.Tag.set:
		tag, err := f.Tag.v.validate(ref)
		if err != nil {
			return Filter{}, err
		}
		out.Tags = []Tag{tag}
	case f.And.set:
		return f.And.v.validate(ref)
	}
	var err error
	if out.SizeGreaterThan, out.SizeLessThan, err = sizeBounds(ref, f.ObjectSizeGreaterThan, f.ObjectSizeLessThan); err != nil {
		return Filter{}, err
	}
	return out, nil
}

// validate checks an And: per the AWS LifecycleRuleAndOperator docs it joins
// two or more predicates. S3 refuses a repeated tag key as a disallowed
// combination (InvalidRequest).
func (a *xmlAnd) validate(ref ruleRef) (Filter, error) {
	n := len(a.Tags)
	for _, set := range []bool{a.Prefix.set, a.ObjectSizeGreaterThan.set, a.ObjectSizeLessThan.set} {
		if set {
			n++
		}
	}
	if n < 2 {
		return Filter{}, ref.errorf(CodeMalformedXML, "<And> has %d predicate(s); it needs at least two", n)
	}

	out := Filter{Prefix: a.Prefix.v, And: true}
	seen := make(map[string]bool, len(a.Tags))
	for i := range a.Tags {
		tag, err := a.Tags[i].v.validate(ref)
		if err != nil {
			return Filter{}, err
		}
		if seen[tag.Key] {
			return Filter{}, ref.errorf(CodeInvalidRequest, "duplicate tag key %q in <And>", tag.Key)
		}
		seen[tag.Key] = true
		out.Tags = append(out.Tags, tag)
	}
	slices.SortFunc(out.Tags, func(x, y Tag) int { return strings.Compare(x.Key, y.Key) })

	var err error
	if out.SizeGreaterThan, out.SizeLessThan, err = sizeBounds(ref, a.ObjectSizeGreaterThan, a.ObjectSizeLessThan); err != nil {
		return Filter{}, err
	}
	return out, nil
}

// validate checks a Tag: Key and Value are required elements; the key is
// 1..128 characters and the value at most 256, per the AWS Tag docs.
func (t *xmlTag) validate(ref ruleRef) (Tag, error) {
	if !t.Key.set || !t.Value.set {
		return Tag{}, ref.errorf(CodeMalformedXML, "<Tag> needs both <Key> and <Value>")
	}
	key, value := t.Key.v, t.Value.v
	switch n := utf8.RuneCountInString(key); {
	case n == 0:
		return Tag{}, ref.errorf(CodeInvalidArgument, "tag key is empty")
	case n > MaxTagKeyLen:
		return Tag{}, ref.errorf(CodeInvalidArgument, "tag key is %d characters; at most %d are allowed", n, MaxTagKeyLen)
	}
	if n := utf8.RuneCountInString(value); n > MaxTagValueLen {
		return Tag{}, ref.errorf(CodeInvalidArgument, "value of tag %q is %d characters; at most %d are allowed", key, n, MaxTagValueLen)
	}
	return Tag{Key: key, Value: value}, nil
}

// sizeBounds checks the object size bounds (bytes): GreaterThan >= 0,
// LessThan > 0 (a bound of 0 matches nothing), and GreaterThan < LessThan
// when both are set.
func sizeBounds(ref ruleRef, gt, lt one[string]) (greater, less *int64, err error) {
	if gt.set {
		v, err := parseIntElement(ref, "ObjectSizeGreaterThan", gt.v, 64)
		if err != nil {
			return nil, nil, err
		}
		if v < 0 {
			return nil, nil, ref.errorf(CodeInvalidArgument, "ObjectSizeGreaterThan is %d; it must be 0 or more bytes", v)
		}
		greater = &v
	}
	if lt.set {
		v, err := parseIntElement(ref, "ObjectSizeLessThan", lt.v, 64)
		if err != nil {
			return nil, nil, err
		}
		if v <= 0 {
			return nil, nil, ref.errorf(CodeInvalidArgument, "ObjectSizeLessThan is %d; it must be a positive number of bytes", v)
		}
		less = &v
	}
	if greater != nil && less != nil && *greater >= *less {
		return nil, nil, ref.errorf(CodeInvalidArgument,
			"ObjectSizeGreaterThan (%d) must be less than ObjectSizeLessThan (%d)", *greater, *less)
	}
	return greater, less, nil
}

// validate checks an Expiration. Per the AWS LifecycleExpiration docs it
// holds one of Days, Date or ExpiredObjectDeleteMarker; S3 answers a second
// one with MalformedXML. ExpiredObjectDeleteMarker=false is accepted and is
// no action.
func (e *xmlExpiration) validate(ref ruleRef, rule *Rule) error {
	switch {
	case !e.Days.set && !e.Date.set && !e.ExpiredObjectDeleteMarker.set:
		return ref.errorf(CodeMalformedXML, "<Expiration> is empty; it needs Days, Date or ExpiredObjectDeleteMarker")
	case e.Days.set && e.Date.set:
		return ref.errorf(CodeMalformedXML, "Expiration has both Days and Date; use one")
	case e.ExpiredObjectDeleteMarker.set && (e.Days.set || e.Date.set):
		return ref.errorf(CodeMalformedXML, "ExpiredObjectDeleteMarker cannot be specified with Days or Date")
	}
	var err error
	if e.Days.set {
		if rule.ExpirationDays, err = positiveDays(ref, "Expiration Days", e.Days.v); err != nil {
			return err
		}
	}
	if e.Date.set {
		if rule.ExpirationDate, err = parseMidnightUTC(ref, "Expiration Date", e.Date.v); err != nil {
			return err
		}
	}
	if e.ExpiredObjectDeleteMarker.set {
		// xsd:boolean: true, false, 1 or 0.
		switch strings.TrimSpace(e.ExpiredObjectDeleteMarker.v) {
		case "true", "1":
			rule.ExpiredObjectDeleteMarker = true
		case "false", "0":
		default:
			return ref.errorf(CodeMalformedXML, "ExpiredObjectDeleteMarker is %q; want true or false", e.ExpiredObjectDeleteMarker.v)
		}
	}
	return nil
}

// validate checks a NoncurrentVersionExpiration: NoncurrentDays (days since
// the version became noncurrent, > 0) and, optionally,
// NewerNoncurrentVersions (versions to retain, 1..100), per the AWS
// NoncurrentVersionExpiration docs ("The value must be a non-zero positive
// integer"). NewerNoncurrentVersions alone is rejected as S3 rejects it
// (InvalidArgument: 'NoncurrentDays' for NoncurrentVersionExpiration action
// must be a positive integer), so nothing expires under it; MinIO accepts
// it and expires the versions beyond the count at once, which deletes
// what S3 keeps.
func (n *xmlNoncurrentVersionExpiration) validate(ref ruleRef, rule *Rule) error {
	if !n.NoncurrentDays.set && !n.NewerNoncurrentVersions.set {
		return ref.errorf(CodeMalformedXML, "<NoncurrentVersionExpiration> needs NoncurrentDays")
	}
	if !n.NoncurrentDays.set {
		return ref.errorf(CodeInvalidArgument, "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer (NewerNoncurrentVersions needs it)")
	}
	var err error
	if n.NoncurrentDays.set {
		if rule.NoncurrentDays, err = positiveDays(ref, "NoncurrentDays", n.NoncurrentDays.v); err != nil {
			return err
		}
	}
	if n.NewerNoncurrentVersions.set {
		v, err := parseIntElement(ref, "NewerNoncurrentVersions", n.NewerNoncurrentVersions.v, 32)
		if err != nil {
			return err
		}
		if v < 1 || v > MaxNewerNoncurrentVersions {
			return ref.errorf(CodeInvalidArgument, "NewerNoncurrentVersions is %d; it must be between 1 and %d", v, MaxNewerNoncurrentVersions)
		}
		rule.NewerNoncurrentVersions = int(v)
	}
	return nil
}

// MaxDays caps day counts so due times stay inside time.Duration's range
// (about 292 years); 36500 days is a century.
const MaxDays = 36500

// positiveDays parses a day count: a positive xsd:int, per the AWS docs
// ("must be a non-zero positive integer"), at most MaxDays.
func positiveDays(ref ruleRef, field, s string) (int, error) {
	v, err := parseIntElement(ref, field, s, 32)
	if err != nil {
		return 0, err
	}
	if v <= 0 {
		return 0, ref.errorf(CodeInvalidArgument, "%s is %d; it must be a positive integer", field, v)
	}
	if v > MaxDays {
		return 0, ref.errorf(CodeInvalidArgument, "%s is %d; ilmctl accepts at most %d days", field, v, MaxDays)
	}
	return int(v), nil
}

// parseIntElement parses an integer element. Text that is not an integer breaks
// the schema (MalformedXML); an integer too large for its type is a bad
// value (InvalidArgument).
func parseIntElement(ref ruleRef, field, s string, bits int) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	if errors.Is(err, strconv.ErrRange) {
		return 0, ref.errorf(CodeInvalidArgument, "%s %q is out of range", field, s)
	}
	if err != nil {
		return 0, ref.errorf(CodeMalformedXML, "%s %q is not an integer", field, s)
	}
	return v, nil
}

// parseMidnightUTC parses Expiration/Date or Transition/Date (field names
// it). AWS requires ISO 8601 at midnight UTC; Parse accepts the RFC 3339
// forms S3 itself emits, with or without fractional seconds and ending in Z
// (2027-01-01T00:00:00Z, 2027-01-01T00:00:00.000Z). A bare date or a
// numeric offset is refused.
func parseMidnightUTC(ref ruleRef, field, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		return time.Time{}, ref.errorf(CodeInvalidArgument,
			"%s %q is not ISO 8601 UTC; write it like 2027-01-01T00:00:00Z", field, s)
	}
	t = t.UTC()
	if t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
		return time.Time{}, ref.errorf(CodeInvalidArgument, "%s %q must be at midnight UTC", field, s)
	}
	return t, nil
}
