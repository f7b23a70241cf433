package seaweedfs

import (
	"fmt"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// eventCodec decodes the SubscribeMetadata stream keeping only what
// mapEvent reads: each response's directory, TsNs and batched events, and
// of each entry its name, whether it is a directory and the Extended
// attributes in eventExtended. A replay streams the whole meta-log window
// (hundreds of thousands of events, each carrying its entries' chunks,
// attributes and every Extended attribute), and decoding all of it was
// half of a cold pass's CPU in ilmctl. Requests are marshalled as usual.
type eventCodec struct{}

// eventExtended is every Extended key mapEvent reads (directly, or through
// Entry.IsPrefixObject).
var eventExtended = map[string]bool{
	extMultipartObjectKey: true,
	extLatestVersionID:    true,
	extNoncurrentSinceNs:  true,
	extPrefixObject:       true,
}

// eventStreamCodec is the call option that decodes with eventCodec.
var eventStreamCodec = grpc.ForceCodec(eventCodec{})

// Name is the gRPC content subtype: the server sees plain protobuf.
func (eventCodec) Name() string { return "proto" }

func (eventCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("eventCodec: cannot marshal %T", v)
	}
	return proto.Marshal(m)
}

func (eventCodec) Unmarshal(data []byte, v any) error {
	r, ok := v.(*filer_pb.SubscribeMetadataResponse)
	if !ok {
		m, ok := v.(proto.Message)
		if !ok {
			return fmt.Errorf("eventCodec: cannot unmarshal into %T", v)
		}
		return proto.Unmarshal(data, m)
	}
	return decodeEventResponse(data, r)
}

// fieldFn decodes one field of a message; it returns the bytes consumed,
// or a negative protowire error code.
type fieldFn func(num protowire.Number, typ protowire.Type, b []byte) int

// decodeMessage calls fn for every field of the message in b.
func decodeMessage(b []byte, fn fieldFn) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if n = fn(num, typ, b); n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
	}
	return nil
}

// bytesField consumes a length-delimited field into *dst; any other wire
// type is skipped.
func bytesField(num protowire.Number, typ protowire.Type, b []byte, dst func([]byte) error) int {
	if typ != protowire.BytesType {
		return protowire.ConsumeFieldValue(num, typ, b)
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return n
	}
	if err := dst(v); err != nil {
		return -1
	}
	return n
}

// decodeEventResponse decodes a SubscribeMetadataResponse (field numbers
// per weed/pb/filer.proto: directory 1, event_notification 2, ts_ns 3,
// events 4).
func decodeEventResponse(b []byte, r *filer_pb.SubscribeMetadataResponse) error {
	return decodeMessage(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch {
		case num == 1:
			return bytesField(num, typ, b, func(v []byte) error { r.Directory = string(v); return nil })
		case num == 2:
			return bytesField(num, typ, b, func(v []byte) error {
				r.EventNotification = &filer_pb.EventNotification{}
				return decodeEventNotification(v, r.EventNotification)
			})
		case num == 3 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			r.TsNs = int64(v)
			return n
		case num == 4:
			return bytesField(num, typ, b, func(v []byte) error {
				sub := &filer_pb.SubscribeMetadataResponse{}
				r.Events = append(r.Events, sub)
				return decodeEventResponse(v, sub)
			})
		}
		return protowire.ConsumeFieldValue(num, typ, b)
	})
}

// decodeEventNotification decodes old_entry 1, new_entry 2 and
// new_parent_path 4.
func decodeEventNotification(b []byte, en *filer_pb.EventNotification) error {
	return decodeMessage(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return bytesField(num, typ, b, func(v []byte) error {
				en.OldEntry = &filer_pb.Entry{}
				return decodeEventEntry(v, en.OldEntry)
			})
		case 2:
			return bytesField(num, typ, b, func(v []byte) error {
				en.NewEntry = &filer_pb.Entry{}
				return decodeEventEntry(v, en.NewEntry)
			})
		case 4:
			return bytesField(num, typ, b, func(v []byte) error { en.NewParentPath = string(v); return nil })
		}
		return protowire.ConsumeFieldValue(num, typ, b)
	})
}

// decodeEventEntry decodes name 1, is_directory 2 and the extended 5
// entries named in eventExtended.
func decodeEventEntry(b []byte, e *filer_pb.Entry) error {
	return decodeMessage(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch {
		case num == 1:
			return bytesField(num, typ, b, func(v []byte) error { e.Name = string(v); return nil })
		case num == 2 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			e.IsDirectory = protowire.DecodeBool(v)
			return n
		case num == 5:
			return bytesField(num, typ, b, func(v []byte) error { return decodeExtended(v, e) })
		}
		return protowire.ConsumeFieldValue(num, typ, b)
	})
}

// decodeExtended decodes one map entry (key 1, value 2) and keeps it when
// its key is in eventExtended.
func decodeExtended(b []byte, e *filer_pb.Entry) error {
	var key, val []byte
	err := decodeMessage(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
		switch num {
		case 1:
			return bytesField(num, typ, b, func(v []byte) error { key = v; return nil })
		case 2:
			return bytesField(num, typ, b, func(v []byte) error { val = v; return nil })
		}
		return protowire.ConsumeFieldValue(num, typ, b)
	})
	if err != nil || !eventExtended[string(key)] {
		return err
	}
	if e.Extended == nil {
		e.Extended = map[string][]byte{}
	}
	e.Extended[string(key)] = append([]byte{}, val...)
	return nil
}
