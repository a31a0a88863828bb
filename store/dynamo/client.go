package dynamo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"

	"github.com/acme/comments-gateway/store/table"
)

// Client is the part of the DynamoDB API the package uses. *dynamodb.Client
// implements it; a test can wrap one to observe calls or inject faults.
type Client interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error)
}

var _ Client = (*dynamodb.Client)(nil)

// Retry policy of one request, applied by the SDK's standard retryer that
// Open configures.
const (
	// MaxAttempts is the number of attempts of one DynamoDB request
	// (the first and up to nine retries) before it fails with EUNAVAILABLE;
	// the request's context deadline ends it earlier.
	MaxAttempts = 10
	// retryBase and retryMax bound the full-jitter exponential backoff of the
	// SDK retryer: attempt n waits a random time in [0, min(retryMax,
	// retryBase·2ⁿ)). The nine waits of ten attempts add up to 4.6 s on
	// average, 9.2 s at most.
	retryBase = 25 * time.Millisecond
	retryMax  = 2 * time.Second
	// unprocessedBase and unprocessedMax bound the backoff between the calls
	// that retry the unprocessed keys or items of a batch (DynamoDB returns
	// them when it throttles part of the batch).
	unprocessedBase = 50 * time.Millisecond
	unprocessedMax  = 5 * time.Second
)

// Open returns a Table on the DynamoDB table named name, with the client
// configured the standard SDK way: region from AWS_REGION or the shared
// config, credentials from the default chain, the endpoint from
// AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) for a local server. It
// installs the package's retryer: throttling, 5xx responses and network
// timeouts are retried up to MaxAttempts times with jittered exponential
// backoff, never past the request's context deadline. AWS_MAX_ATTEMPTS, when
// set, overrides MaxAttempts. apiOptions are added to the client's
// middleware stack, around every call (the server installs its call
// tracing this way). Open makes no request.
func Open(ctx context.Context, name string, apiOptions ...func(*middleware.Stack) error) (*Table, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryer(NewRetryer), config.WithLogger(sdkLogger))
	if err != nil {
		return nil, table.Wrap(table.EUNAVAILABLE, err, "load the AWS configuration")
	}
	cfg.APIOptions = append(cfg.APIOptions, apiOptions...)
	return New(dynamodb.NewFromConfig(cfg), name), nil
}

// sdkLogger sends the SDK's own log lines (a response body it could not
// drain, a clock skew) to slog's default logger at the time of the line,
// so they take the command's log format (JSON in production) instead of
// the SDK's plain "SDK <time> WARN" lines on stderr.
var sdkLogger = logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
	level := slog.LevelWarn
	if c == logging.Debug {
		level = slog.LevelDebug
	}
	slog.Default().Log(context.Background(), level, fmt.Sprintf(format, v...), "source", "aws-sdk")
})

// NewRetryer returns the retryer Open installs: the SDK's standard retryer
// with MaxAttempts attempts, full-jitter exponential backoff from 25 ms up to
// 2 s, no client-side retry quota (the context deadline bounds the work
// instead), and, besides the standard retryable errors (throttling codes such
// as ProvisionedThroughputExceededException, HTTP 500/502/503/504, connection
// errors and timeouts), transactions cancelled only because DynamoDB
// throttled them.
func NewRetryer() aws.Retryer { return newRetryer() }

// newRetryer is NewRetryer with more retryable errors.
func newRetryer(more ...retry.IsErrorRetryable) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = MaxAttempts
		o.MaxBackoff = retryMax
		o.Backoff = retry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
			return jitter(attempt, retryBase, retryMax), nil
		})
		// The default token bucket fails requests fast once ~100 retries
		// happened without enough successes in between: under a throttling
		// burst it would turn throttles into errors that waiting would have
		// avoided. The context deadline bounds each request instead.
		o.RateLimiter = ratelimit.None
		o.Retryables = append(o.Retryables, retry.IsErrorRetryableFunc(throttledTransaction))
		o.Retryables = append(o.Retryables, more...)
	})
}

// readRetryer is NewRetryer for the reads (GetItem, BatchGetItem, Query,
// Scan): it also retries a reply cut short (truncatedReply). A read may be
// repeated; a write may not (its first attempt may have committed), so
// writes keep NewRetryer.
var readRetryer = newRetryer(retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
	return aws.BoolTernary(truncatedReply(err))
}))

// readCall is the option of every read call: readRetryer.
func readCall(o *dynamodb.Options) { o.Retryer = readRetryer }

// truncatedReply reports whether err is a reply whose body ended before
// its JSON did ("deserialization failed, unexpected EOF"): the connection
// was cut mid-reply, which DynamoDB Local does under load, a transport
// failure rather than a refusal.
func truncatedReply(err error) bool {
	var de *smithy.DeserializationError
	return errors.As(err, &de) && (errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(de.Error(), "unexpected EOF"))
}

// throttledTransaction marks as retryable a TransactionCanceledException
// whose reasons are only throttling (and "None" for the other items).
func throttledTransaction(err error) aws.Ternary {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return aws.UnknownTernary
	}
	throttled := false
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "", "None":
		case "ThrottlingError", "ProvisionedThroughputExceeded":
			throttled = true
		default:
			return aws.FalseTernary
		}
	}
	return aws.BoolTernary(throttled)
}

// jitter returns a random delay in [0, min(max, base·2^attempt)) ("full
// jitter").
func jitter(attempt int, base, max time.Duration) time.Duration {
	ceiling := max
	if attempt < 20 {
		if d := base << attempt; d < max {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling)
}

// sleep waits d or until ctx is done, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
