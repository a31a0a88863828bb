package dynamo

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store/table"
)

// The expressions of a write operation: its condition, and an update's
// ADD, SET and REMOVE, built with the expression builder.

// parts are the DynamoDB parameters of one op.
type parts struct {
	key    map[string]types.AttributeValue
	item   map[string]types.AttributeValue // OpPut
	update *string                         // OpUpdate
	cond   *string
	// onFailure asks DynamoDB for the item as it was when a condition
	// fails, to tell which one did (writeError).
	onFailure types.ReturnValuesOnConditionCheckFailure
	names     map[string]string
	values    map[string]types.AttributeValue
}

// build validates op and builds its parameters.
func build(op table.Op) (parts, error) {
	var p parts
	if err := table.ValidateOp(op); err != nil {
		return p, err
	}
	var err error
	if p.key, err = keyAV(op.Key); err != nil {
		return p, err
	}
	b := expression.NewBuilder()
	hasExpr := false
	if cond, ok := condition(op.Conds); ok {
		b, hasExpr = b.WithCondition(cond), true
	}
	switch op.Kind {
	case table.OpPut:
		if p.item, err = toAVMap(op.Item); err != nil {
			return p, err
		}
	case table.OpUpdate:
		upd, err := update(op)
		if err != nil {
			return p, err
		}
		b, hasExpr = b.WithUpdate(upd), true
	}
	if !hasExpr {
		return p, nil
	}
	expr, err := b.Build()
	if err != nil {
		return p, table.Wrap(table.EINTERNAL, err, "write: build the expressions")
	}
	p.update, p.cond = expr.Update(), expr.Condition()
	if p.cond != nil {
		p.onFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	p.names, p.values = expr.Names(), expr.Values()
	return p, nil
}

// condition returns the conjunction of conds (checked by table.ValidateOp), and
// whether there is any.
func condition(conds []table.Cond) (expression.ConditionBuilder, bool) {
	var cs []expression.ConditionBuilder
	for _, c := range conds {
		switch c.Kind {
		case table.CondExists:
			cs = append(cs, expression.AttributeExists(name(table.AttrPK)))
		case table.CondNotExists:
			cs = append(cs, expression.AttributeNotExists(name(table.AttrPK)))
		case table.CondEquals:
			av, _ := toAV(c.Attr, c.Value)
			cs = append(cs, name(c.Attr).Equal(expression.Value(av)))
		case table.CondAbsent:
			cs = append(cs, expression.AttributeNotExists(name(c.Attr)))
		}
	}
	switch len(cs) {
	case 0:
		return expression.ConditionBuilder{}, false
	case 1:
		return cs[0], true
	}
	return expression.And(cs[0], cs[1], cs[2:]...), true
}

// update returns the update expression of op (checked by table.ValidateOp): ADD,
// SET and REMOVE.
func update(op table.Op) (expression.UpdateBuilder, error) {
	var u expression.UpdateBuilder
	for attr, d := range op.Add {
		u = u.Add(name(attr), expression.Value(&types.AttributeValueMemberN{Value: strconv.FormatInt(d, 10)}))
	}
	for attr, v := range op.Set {
		av, err := toAV(attr, v)
		if err != nil {
			return u, err
		}
		u = u.Set(name(attr), expression.Value(av))
	}
	for _, attr := range op.Remove {
		u = u.Remove(name(attr))
	}
	return u, nil
}

// name is an attribute name taken literally (no document paths).
func name(attr string) expression.NameBuilder { return expression.NameNoDotSplit(attr) }
