// Package live delivers committed comment changes to GraphQL subscribers.
//
// A Hub fans changes out to its subscribers, each with a filter like the
// comments query's and a bounded buffer: a subscriber whose buffer is full
// is ended with ErrSlowConsumer, so a slow client never makes the gateway
// hold more than Config.Buffer events for it. Statistics subscribers get the
// product's statistics, read once per change burst for all of them.
//
// Changes reach a Hub in one of two ways:
//   - one process (bbolt): the store publishes each change after its
//     transaction commits (store.WithPublisher(hub));
//   - many processes on one DynamoDB table: the table's stream carries
//     every committed write; one process, elected by a Lease item in the
//     table, runs the Reader, which turns comment records into changes and
//     appends them to the table's change log (store.AppendChanges) before
//     it checkpoints; a Follower in each process polls the log while the
//     process has subscribers, and publishes each change id once.
//
// The gateway (live/livehttp/fanout.go) subscribes once per distinct
// subscription operation and shares each event's execution among that
// operation's subscribers.
//
// docs/live.md explains the choice, the failover and the cost.
package live
