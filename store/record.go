package store

import "github.com/acme/comments-gateway/store/table"

// The columns a comment is read in (table.Columns): every attribute
// commentFrom reads, and the sort keys of the orders. A page's queries ask
// for them (Query.Columns), so that a backend that decodes straight into
// records builds no map per item; every other item, of a backend or a
// Get, becomes a record by Columns.Record. commentFrom, reading records,
// is then the one rule of "item → comment".
const (
	colPK = iota
	colSK
	colGSISK
	colHSK
	colID
	colProductID
	colLanguage
	colRating
	colAuthor
	colTitle
	colBody
	colCreatedAt
	colVersion
	colAuthorID
	colHelpful
	colUnhelpful
	colVerified
	colReply
	colStatus
	colReports
	colModeratedAt
	colModerationReason
	numCommentCols
)

// commentColumns are the columns of a comment record, in the order of
// the col constants.
var commentColumns = table.NewColumns(commentColumnNames[:]...)

// commentColumnNames are the attribute names of the col constants (one
// left out would be "", which NewColumns refuses).
var commentColumnNames = [numCommentCols]string{
	colPK: table.AttrPK, colSK: table.AttrSK, colGSISK: table.AttrGSISK, colHSK: table.AttrHSK,
	colID: table.AttrID, colProductID: table.AttrProductID, colLanguage: table.AttrLanguage,
	colRating: table.AttrRating, colAuthor: table.AttrAuthor, colTitle: table.AttrTitle,
	colBody: table.AttrBody, colCreatedAt: table.AttrCreatedAt, colVersion: table.AttrVersion,
	colAuthorID: table.AttrAuthorID, colHelpful: table.AttrHelpful, colUnhelpful: table.AttrUnhelpful,
	colVerified: table.AttrVerified, colReply: table.AttrReply, colStatus: table.AttrStatus,
	colReports: table.AttrReports, colModeratedAt: table.AttrModeratedAt,
	colModerationReason: table.AttrModerationReason,
}

// records returns the items of a query with commentColumns as records:
// the backend's, or its Items converted.
func records(res table.QueryResult) []table.Record {
	if res.Records != nil || res.Items == nil {
		return res.Records
	}
	out := make([]table.Record, len(res.Items))
	for i, it := range res.Items {
		out[i] = commentColumns.Record(it)
	}
	return out
}
