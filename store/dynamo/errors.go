package dynamo

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/acme/comments-gateway/store/table"
)

// throttleCodes are the error codes with which DynamoDB says "slow down".
var throttleCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"Throttling":                             true,
	"RequestLimitExceeded":                   true,
	"LimitExceededException":                 true,
	"TooManyRequestsException":               true,
	"TransactionInProgressException":         true,
}

// unreachableCodes are errors of configuration or access rather than of the
// request: the store cannot be used as configured.
var unreachableCodes = map[string]bool{
	"ResourceNotFoundException":    true, // the table does not exist (yet)
	"UnrecognizedClientException":  true,
	"InvalidSignatureException":    true,
	"MissingAuthenticationToken":   true,
	"AccessDeniedException":        true,
	"ExpiredTokenException":        true,
	"IncompleteSignatureException": true,
	"InternalServerError":          true,
	"ServiceUnavailable":           true,
	"ServiceUnavailableException":  true,
}

// translate maps an error of a DynamoDB call to a *store.Error. ctx is the
// caller's context: once it is done, any failure is EUNAVAILABLE. An error
// that already carries a store code is returned as is. Condition failures
// of a Write are mapped by the caller (it knows the operation indexes);
// translate handles what remains.
func translate(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var se *table.Error
	if errors.As(err, &se) {
		return err
	}
	msg := "DynamoDB " + op
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return table.Wrap(table.EUNAVAILABLE, err, "%s: gave up at the request's deadline", msg)
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &table.Error{Code: table.ECONFLICT, Message: msg + ": condition failed", Op: 0, Err: err}
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return cancellation(msg, tce, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		code := api.ErrorCode()
		switch {
		case throttleCodes[code]:
			return table.Wrap(table.EUNAVAILABLE, err, "%s: throttled", msg)
		case code == "TransactionConflictException":
			return table.Wrap(table.ECONFLICT, err, "%s: conflicts with a concurrent transaction", msg)
		case unreachableCodes[code]:
			return table.Wrap(table.EUNAVAILABLE, err, "%s: %s", msg, code)
		case code == "ValidationException" || code == "ItemCollectionSizeLimitExceededException":
			if tooLarge(api.ErrorMessage()) || code == "ItemCollectionSizeLimitExceededException" {
				return table.Wrap(table.EINVALID, err, "%s: item too large", msg)
			}
			// Anything else DynamoDB rejects is a bug of ours: the store
			// validates user input before it reaches a backend.
			return table.Wrap(table.EINTERNAL, err, "%s: rejected", msg)
		}
		if api.ErrorFault() == smithy.FaultServer {
			return table.Wrap(table.EUNAVAILABLE, err, "%s: server error", msg)
		}
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
		return table.Wrap(table.EUNAVAILABLE, err, "%s: server error", msg)
	}
	var send *smithyhttp.RequestSendError
	var ne net.Error
	if errors.As(err, &send) || errors.As(err, &ne) || truncatedReply(err) {
		return table.Wrap(table.EUNAVAILABLE, err, "%s: cannot reach DynamoDB", msg)
	}
	if strings.Contains(err.Error(), "failed to retrieve credentials") {
		return table.Wrap(table.EUNAVAILABLE, err, "%s: no AWS credentials", msg)
	}
	return table.Wrap(table.EINTERNAL, err, "%s failed", msg)
}

// writeError translates the error of a write call. A failed condition of
// op i (translate's ECONFLICT with Op i) is explained by the item DynamoDB
// returned with it as it was (ReturnValuesOnConditionCheckFailure ALL_OLD):
// table.CondFailure finds the condition that does not hold, so a condition
// with its own code (an ownership check's EFORBIDDEN) is told apart from a
// version conflict, and from a missing item.
func writeError(ctx context.Context, call string, ops []table.Op, err error) error {
	terr := translate(ctx, call, err)
	var se *table.Error
	if !errors.As(terr, &se) || se.Code != table.ECONFLICT || se.Op < 0 || se.Op >= len(ops) {
		return terr
	}
	old, cerr := fromAVMap(itemAtFailure(err, se.Op))
	if cerr != nil {
		return terr
	}
	return table.CondFailure(se.Op, ops[se.Op].Conds, old, err)
}

// itemAtFailure returns the item DynamoDB returned with the failed
// condition of op i of err (nil: none, or it did not exist).
func itemAtFailure(err error, i int) map[string]types.AttributeValue {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf.Item
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && i < len(tce.CancellationReasons) {
		return tce.CancellationReasons[i].Item
	}
	return nil
}

// cancellation maps a cancelled transaction: the first item whose condition
// failed gives ECONFLICT with Op = its index; a conflict with another
// transaction gives ECONFLICT with Op = -1; throttling gives EUNAVAILABLE.
func cancellation(msg string, tce *types.TransactionCanceledException, err error) error {
	conflict, throttled, invalid := false, false, false
	for i, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "ConditionalCheckFailed":
			return &table.Error{Code: table.ECONFLICT, Message: msg + ": condition failed", Op: i, Err: err}
		case "TransactionConflict":
			conflict = true
		case "ThrottlingError", "ProvisionedThroughputExceeded":
			throttled = true
		case "ValidationError", "ItemCollectionSizeLimitExceeded":
			invalid = invalid || tooLarge(aws.ToString(r.Message)) || aws.ToString(r.Code) == "ItemCollectionSizeLimitExceeded"
		}
	}
	switch {
	case conflict:
		return table.Wrap(table.ECONFLICT, err, "%s: conflicts with a concurrent transaction", msg)
	case throttled:
		return table.Wrap(table.EUNAVAILABLE, err, "%s: throttled", msg)
	case invalid:
		return table.Wrap(table.EINVALID, err, "%s: item too large", msg)
	}
	return table.Wrap(table.EINTERNAL, err, "%s: transaction cancelled", msg)
}

// tooLarge reports whether a validation message is about DynamoDB's item
// size limit (400 KB), which user input can reach.
func tooLarge(m string) bool {
	m = strings.ToLower(m)
	return strings.Contains(m, "item size") || strings.Contains(m, "maximum allowed size")
}
