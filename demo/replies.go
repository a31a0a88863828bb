package demo

import (
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/acme/comments-gateway/store"
)

// What a shop adds to its reviews, per rating (index = rating): the share
// of comments from verified buyers, and the share the shop replied to. A
// shop answers complaints far more often than praise.
var (
	verifiedShare = [6]float64{0, 0.45, 0.5, 0.6, 0.7, 0.7}
	replyShare    = [6]float64{0, 0.35, 0.25, 0.12, 0.05, 0.04}
)

// shopReplies are the shop's reply bodies by language tag: apologies for
// ratings 1–3 and thanks for 4–5.
var shopReplies = map[string]struct{ sorry, thanks []string }{
	"en": {
		sorry:  []string{"We are sorry to hear this. Please contact our support team and we will make it right.", "Thank you for telling us. We have passed your feedback on to the manufacturer."},
		thanks: []string{"Thank you for your review! We are glad you like it.", "Thanks for shopping with us, enjoy it!"},
	},
	"de": {
		sorry:  []string{"Das tut uns leid. Bitte melden Sie sich bei unserem Kundenservice, wir finden eine Lösung.", "Danke für Ihre Rückmeldung. Wir haben sie an den Hersteller weitergegeben."},
		thanks: []string{"Vielen Dank für Ihre Bewertung! Schön, dass es Ihnen gefällt.", "Danke für Ihren Einkauf, viel Freude damit!"},
	},
	"fr": {
		sorry:  []string{"Nous sommes désolés. Contactez notre service client, nous allons trouver une solution.", "Merci pour votre retour. Nous l'avons transmis au fabricant."},
		thanks: []string{"Merci pour votre avis ! Ravis qu'il vous plaise.", "Merci pour votre achat, profitez-en bien !"},
	},
	"es": {
		sorry:  []string{"Lamentamos lo ocurrido. Contacte con nuestro servicio de atención y lo solucionaremos.", "Gracias por contárnoslo. Hemos enviado sus comentarios al fabricante."},
		thanks: []string{"¡Gracias por su opinión! Nos alegra que le guste.", "¡Gracias por su compra, que lo disfrute!"},
	},
	"it": {
		sorry:  []string{"Ci dispiace. Contatti il nostro servizio clienti e troveremo una soluzione.", "Grazie per la segnalazione. L'abbiamo inoltrata al produttore."},
		thanks: []string{"Grazie per la recensione! Siamo felici che le piaccia.", "Grazie per l'acquisto, buon divertimento!"},
	},
	"pt-BR": {
		sorry:  []string{"Sentimos muito. Fale com nosso atendimento e vamos resolver.", "Obrigado pelo retorno. Já repassamos ao fabricante."},
		thanks: []string{"Obrigado pela avaliação! Que bom que gostou.", "Obrigado pela compra, aproveite!"},
	},
	"ja": {
		sorry:  []string{"ご不便をおかけして申し訳ございません。サポートまでご連絡ください。", "貴重なご意見をありがとうございます。メーカーに共有いたしました。"},
		thanks: []string{"レビューありがとうございます！気に入っていただけて嬉しいです。", "ご購入ありがとうございました。"},
	},
	"nl": {
		sorry:  []string{"Wat vervelend. Neem contact op met onze klantenservice, dan lossen we het op.", "Bedankt voor uw feedback. We hebben die doorgegeven aan de fabrikant."},
		thanks: []string{"Bedankt voor uw review! Fijn dat het bevalt.", "Bedankt voor uw aankoop, veel plezier ermee!"},
	},
	"pl": {
		sorry:  []string{"Przykro nam. Prosimy o kontakt z obsługą klienta, znajdziemy rozwiązanie.", "Dziękujemy za opinię. Przekazaliśmy ją producentowi."},
		thanks: []string{"Dziękujemy za opinię! Cieszymy się, że się podoba.", "Dziękujemy za zakupy, miłego użytkowania!"},
	},
}

// addShopTouches marks some of c as verified purchases and gives some the
// shop's reply, in the comment's language, one to 72 hours after it (never
// at or after end). The draws come from a source seeded by the comment's
// id, not from Generate's, so that the rest of the data set is the same
// with or without them.
func addShopTouches(c *store.Comment, end time.Time) {
	h := fnv.New64a()
	h.Write([]byte(c.ID))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
	c.VerifiedPurchase = rng.Float64() < verifiedShare[c.Rating]
	texts, ok := shopReplies[c.Language]
	if !ok || rng.Float64() >= replyShare[c.Rating] {
		return
	}
	pool := texts.thanks
	if c.Rating <= 3 {
		pool = texts.sorry
	}
	at := c.CreatedAt.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
	if !at.Before(end) {
		at = c.CreatedAt
	}
	c.Reply = &store.Reply{Body: pool[rng.IntN(len(pool))], CreatedAt: at, UpdatedAt: at}
}
