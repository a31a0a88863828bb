package dynamo

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store/table"
)

// toAV converts a table.Item value: a string to S, a number to N. The zero
// Value is EINVALID.
func toAV(name string, v table.Value) (types.AttributeValue, error) {
	if s, ok := v.Str(); ok {
		return &types.AttributeValueMemberS{Value: s}, nil
	}
	if n, ok := v.Num(); ok {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}, nil
	}
	return nil, table.ValidateValue(name, v)
}

// fromAV converts an attribute value back: S to a string, N to a number.
func fromAV(name string, av types.AttributeValue) (table.Value, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return table.S(x.Value), nil
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(x.Value, 10, 64)
		if err != nil {
			return table.Value{}, table.Wrap(table.EINTERNAL, err, "attribute %q: number %q is not an int64", name, x.Value)
		}
		return table.N(n), nil
	}
	return table.Value{}, table.Errorf(table.EINTERNAL, "attribute %q: unsupported attribute type %T (want S or N)", name, av)
}

// toAVMap converts a whole item (nil for an empty or nil one).
func toAVMap(it table.Item) (map[string]types.AttributeValue, error) {
	return convertValues(it, toAV)
}

// fromAVMap converts a whole item back (nil for an empty or nil map:
// DynamoDB's answer when there is no item).
func fromAVMap(m map[string]types.AttributeValue) (table.Item, error) {
	return convertValues(m, fromAV)
}

// convertValues converts every attribute of m with conv (nil for an empty
// or nil m).
func convertValues[V, W any](m map[string]V, conv func(name string, v V) (W, error)) (map[string]W, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]W, len(m))
	for name, v := range m {
		w, err := conv(name, v)
		if err != nil {
			return nil, err
		}
		out[name] = w
	}
	return out, nil
}

// fromAVMaps converts the items of a page (nil for none).
func fromAVMaps(ms []map[string]types.AttributeValue) ([]table.Item, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	items := make([]table.Item, len(ms))
	for i, m := range ms {
		var err error
		if items[i], err = fromAVMap(m); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// keyAV returns the primary key attributes of k. An empty or too long PK or
// SK is EINVALID: DynamoDB rejects them.
func keyAV(k table.Key) (map[string]types.AttributeValue, error) {
	if err := table.ValidateKey(k); err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		table.AttrPK: &types.AttributeValueMemberS{Value: k.PK},
		table.AttrSK: &types.AttributeValueMemberS{Value: k.SK},
	}, nil
}
