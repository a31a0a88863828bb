package demo

// langText is the phrase book of one language: author names, titles by
// rating, and body sentences by sentiment. Sentences are short and generic
// so that any of them fits any product.
type langText struct {
	tag     string      // canonical BCP 47 tag
	weight  float64     // share of all comments, in percent, before per-product variation
	sep     string      // joins sentences: " ", or "" for Japanese
	initial bool        // append a last-name initial ("Anna K.") to author names
	names   []string    // author first names (or family names for ja)
	titles  [6][]string // titles[r] for rating r in 1..5
	pos     []string    // praise
	mid     []string    // lukewarm, mixed
	neg     []string    // complaints
	neutral []string    // context that fits any rating
}

// initials are the last-name initials of Latin-script author names.
const initials = "ABCDEFGHJKLMNOPRSTVWZ"

// languages are the demo languages, most common first. The weights sum to 100.
var languages = []*langText{
	{
		tag: "en", weight: 55, sep: " ", initial: true,
		names: []string{"Emily", "James", "Olivia", "Michael", "Sarah", "David", "Jessica", "Daniel", "Hannah", "Chris", "Megan", "Ryan"},
		titles: [6][]string{
			1: {"Total waste of money", "Broke after a week", "Do not buy"},
			2: {"Disappointing", "Not as described", "Expected much more"},
			3: {"It's okay", "Decent, but not great", "Does the job, mostly"},
			4: {"Very good", "Solid purchase", "Happy with it overall"},
			5: {"Absolutely love it!", "Best purchase this year", "Exceeded my expectations", "Five stars, no doubt"},
		},
		pos: []string{
			"Works exactly as described.",
			"The build quality is excellent and it feels like it will last.",
			"Setup took less than five minutes.",
			"I use it every day and it has not let me down once.",
			"Great value for the price.",
			"My partner liked it so much that we ordered a second one.",
			"Customer service answered my question within an hour.",
		},
		mid: []string{
			"It does what it should, nothing more.",
			"The quality is fine, but the price is a bit high.",
			"The instructions could be clearer.",
			"Good enough for occasional use.",
			"After a month it still works, although it shows some wear.",
		},
		neg: []string{
			"It stopped working after two weeks.",
			"The material feels cheap and flimsy.",
			"It looks nothing like the pictures.",
			"Support never replied to my emails.",
			"I sent it back and I am still waiting for the refund.",
			"Half of the parts were missing from the box.",
		},
		neutral: []string{
			"I bought it as a gift for my brother.",
			"Delivery took four days.",
			"I compared several models before choosing this one.",
			"The packaging was simple and recyclable.",
		},
	},
	{
		tag: "de", weight: 13, sep: " ", initial: true,
		names: []string{"Anna", "Lukas", "Sophie", "Jonas", "Marie", "Felix", "Katrin", "Matthias", "Lena", "Thomas"},
		titles: [6][]string{
			1: {"Totaler Fehlkauf", "Nach einer Woche kaputt", "Finger weg!"},
			2: {"Enttäuschend", "Nicht wie beschrieben", "Hatte mehr erwartet"},
			3: {"Ganz okay", "Geht so", "Brauchbar, aber mehr nicht"},
			4: {"Sehr gut", "Solider Kauf", "Insgesamt zufrieden"},
			5: {"Absolut top!", "Bester Kauf des Jahres", "Übertrifft meine Erwartungen"},
		},
		pos: []string{
			"Funktioniert genau wie beschrieben.",
			"Die Verarbeitung ist hervorragend.",
			"Die Einrichtung hat keine fünf Minuten gedauert.",
			"Ich benutze es jeden Tag und bin rundum zufrieden.",
			"Das Preis-Leistungs-Verhältnis stimmt.",
			"Der Kundendienst hat meine Frage innerhalb einer Stunde beantwortet.",
		},
		mid: []string{
			"Es erfüllt seinen Zweck, mehr aber auch nicht.",
			"Die Qualität ist in Ordnung, der Preis ist etwas hoch.",
			"Die Anleitung könnte verständlicher sein.",
			"Für gelegentliche Nutzung reicht es völlig.",
			"Nach einem Monat zeigt es erste Gebrauchsspuren.",
		},
		neg: []string{
			"Nach zwei Wochen hat es den Geist aufgegeben.",
			"Das Material fühlt sich billig an.",
			"Es sieht ganz anders aus als auf den Bildern.",
			"Der Support hat nie auf meine E-Mails geantwortet.",
			"Ich habe es zurückgeschickt und warte immer noch auf die Erstattung.",
			"In der Packung fehlten mehrere Teile.",
		},
		neutral: []string{
			"Ich habe es als Geschenk für meinen Bruder gekauft.",
			"Die Lieferung hat vier Tage gedauert.",
			"Ich habe vorher mehrere Modelle verglichen.",
			"Die Verpackung war schlicht und umweltfreundlich.",
		},
	},
	{
		tag: "fr", weight: 9, sep: " ", initial: true,
		names: []string{"Camille", "Julien", "Léa", "Thomas", "Chloé", "Nicolas", "Manon", "Antoine", "Sophie", "Hugo"},
		titles: [6][]string{
			1: {"Argent jeté par la fenêtre", "Cassé au bout d'une semaine", "À éviter"},
			2: {"Décevant", "Pas conforme à la description", "Je m'attendais à mieux"},
			3: {"Correct sans plus", "Moyen", "Fait le travail, à peu près"},
			4: {"Très bien", "Bon achat", "Satisfait dans l'ensemble"},
			5: {"Je l'adore !", "Meilleur achat de l'année", "Au-delà de mes attentes"},
		},
		pos: []string{
			"Fonctionne exactement comme décrit.",
			"La finition est excellente.",
			"L'installation a pris moins de cinq minutes.",
			"Je l'utilise tous les jours et il ne m'a jamais déçu.",
			"Très bon rapport qualité-prix.",
			"Le service client a répondu à ma question en moins d'une heure.",
		},
		mid: []string{
			"Il fait ce qu'on lui demande, rien de plus.",
			"La qualité est correcte, mais le prix est un peu élevé.",
			"La notice pourrait être plus claire.",
			"Suffisant pour un usage occasionnel.",
			"Après un mois, il montre déjà des signes d'usure.",
		},
		neg: []string{
			"Il a cessé de fonctionner au bout de deux semaines.",
			"Le matériau fait bon marché.",
			"Il ne ressemble pas du tout aux photos.",
			"Le service client n'a jamais répondu à mes e-mails.",
			"Je l'ai renvoyé et j'attends toujours le remboursement.",
			"Plusieurs pièces manquaient dans la boîte.",
		},
		neutral: []string{
			"Je l'ai acheté pour l'offrir à mon frère.",
			"La livraison a pris quatre jours.",
			"J'ai comparé plusieurs modèles avant de choisir celui-ci.",
			"L'emballage était simple et recyclable.",
		},
	},
	{
		tag: "es", weight: 7, sep: " ", initial: true,
		names: []string{"Lucía", "Javier", "María", "Carlos", "Sofía", "Pablo", "Elena", "Diego", "Carmen", "Alejandro"},
		titles: [6][]string{
			1: {"Dinero tirado", "Se rompió a la semana", "No lo compréis"},
			2: {"Decepcionante", "No es como en la descripción", "Esperaba mucho más"},
			3: {"Está bien", "Normalito", "Cumple, más o menos"},
			4: {"Muy bueno", "Buena compra", "Contento en general"},
			5: {"¡Me encanta!", "La mejor compra del año", "Superó mis expectativas"},
		},
		pos: []string{
			"Funciona exactamente como se describe.",
			"Los acabados son excelentes.",
			"La instalación llevó menos de cinco minutos.",
			"Lo uso todos los días y nunca me ha fallado.",
			"Muy buena relación calidad-precio.",
			"El servicio de atención al cliente respondió en menos de una hora.",
		},
		mid: []string{
			"Cumple su función, nada más.",
			"La calidad es aceptable, pero el precio es algo alto.",
			"Las instrucciones podrían ser más claras.",
			"Suficiente para un uso ocasional.",
			"Al cabo de un mes ya se notan signos de desgaste.",
		},
		neg: []string{
			"Dejó de funcionar a las dos semanas.",
			"El material parece barato.",
			"No se parece en nada a las fotos.",
			"Nunca respondieron a mis correos.",
			"Lo devolví y todavía estoy esperando el reembolso.",
			"Faltaban varias piezas en la caja.",
		},
		neutral: []string{
			"Lo compré para regalárselo a mi hermano.",
			"El envío tardó cuatro días.",
			"Comparé varios modelos antes de elegir este.",
			"El embalaje era sencillo y reciclable.",
		},
	},
	{
		tag: "it", weight: 5, sep: " ", initial: true,
		names: []string{"Giulia", "Marco", "Francesca", "Luca", "Chiara", "Alessandro", "Sara", "Matteo", "Elena", "Davide"},
		titles: [6][]string{
			1: {"Soldi buttati", "Rotto dopo una settimana", "Da evitare"},
			2: {"Deludente", "Non corrisponde alla descrizione", "Mi aspettavo di più"},
			3: {"Discreto", "Nella media", "Fa il suo lavoro, più o meno"},
			4: {"Molto buono", "Buon acquisto", "Soddisfatto nel complesso"},
			5: {"Lo adoro!", "Miglior acquisto dell'anno", "Ha superato le mie aspettative"},
		},
		pos: []string{
			"Funziona esattamente come descritto.",
			"Le finiture sono eccellenti.",
			"L'installazione ha richiesto meno di cinque minuti.",
			"Lo uso ogni giorno e non mi ha mai deluso.",
			"Ottimo rapporto qualità-prezzo.",
			"L'assistenza clienti ha risposto in meno di un'ora.",
		},
		mid: []string{
			"Fa quello che deve, niente di più.",
			"La qualità è accettabile, ma il prezzo è un po' alto.",
			"Le istruzioni potrebbero essere più chiare.",
			"Sufficiente per un uso occasionale.",
			"Dopo un mese mostra già qualche segno di usura.",
		},
		neg: []string{
			"Ha smesso di funzionare dopo due settimane.",
			"Il materiale sembra scadente.",
			"Non assomiglia per niente alle foto.",
			"L'assistenza non ha mai risposto alle mie email.",
			"L'ho restituito e sto ancora aspettando il rimborso.",
			"Mancavano diversi pezzi nella confezione.",
		},
		neutral: []string{
			"L'ho comprato come regalo per mio fratello.",
			"La consegna ha richiesto quattro giorni.",
			"Ho confrontato diversi modelli prima di scegliere questo.",
			"L'imballaggio era semplice e riciclabile.",
		},
	},
	{
		tag: "pt-BR", weight: 4, sep: " ", initial: true,
		names: []string{"Ana", "João", "Beatriz", "Lucas", "Mariana", "Gabriel", "Juliana", "Rafael", "Fernanda", "Pedro"},
		titles: [6][]string{
			1: {"Dinheiro jogado fora", "Quebrou em uma semana", "Não comprem"},
			2: {"Decepcionante", "Não é como na descrição", "Esperava bem mais"},
			3: {"Razoável", "Mais ou menos", "Quebra o galho"},
			4: {"Muito bom", "Boa compra", "Satisfeito no geral"},
			5: {"Amei!", "Melhor compra do ano", "Superou minhas expectativas"},
		},
		pos: []string{
			"Funciona exatamente como descrito.",
			"O acabamento é excelente.",
			"A instalação levou menos de cinco minutos.",
			"Uso todos os dias e nunca me deixou na mão.",
			"Ótimo custo-benefício.",
			"O atendimento respondeu minha dúvida em menos de uma hora.",
		},
		mid: []string{
			"Cumpre o que promete, nada além disso.",
			"A qualidade é boa, mas o preço é um pouco alto.",
			"O manual poderia ser mais claro.",
			"Serve bem para uso ocasional.",
			"Depois de um mês já mostra sinais de desgaste.",
		},
		neg: []string{
			"Parou de funcionar depois de duas semanas.",
			"O material parece barato.",
			"Não se parece em nada com as fotos.",
			"O suporte nunca respondeu meus e-mails.",
			"Devolvi e ainda estou esperando o reembolso.",
			"Faltavam várias peças na caixa.",
		},
		neutral: []string{
			"Comprei de presente para o meu irmão.",
			"A entrega levou quatro dias.",
			"Comparei vários modelos antes de escolher este.",
			"A embalagem era simples e reciclável.",
		},
	},
	{
		tag: "ja", weight: 3, sep: "", initial: false,
		names: []string{"佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "ゆうこ", "たかし"},
		titles: [6][]string{
			1: {"お金の無駄でした", "一週間で壊れました", "買わない方がいいです"},
			2: {"残念です", "説明と違います", "期待外れ"},
			3: {"まあまあです", "普通", "値段なりです"},
			4: {"とても良い", "良い買い物でした", "おおむね満足"},
			5: {"最高です！", "今年一番の買い物", "期待以上でした"},
		},
		pos: []string{
			"説明どおりに動作します。",
			"作りがとてもしっかりしています。",
			"設定は五分もかかりませんでした。",
			"毎日使っていますが、一度も問題がありません。",
			"この値段なら大満足です。",
			"問い合わせにも一時間以内に返事がありました。",
		},
		mid: []string{
			"必要なことはできますが、それ以上ではありません。",
			"品質は悪くないですが、少し高いと思います。",
			"説明書がもう少し分かりやすければ良かったです。",
			"たまに使う分には十分です。",
			"一か月で少し使用感が出てきました。",
		},
		neg: []string{
			"二週間で動かなくなりました。",
			"素材が安っぽく感じます。",
			"写真とは全然違います。",
			"サポートからメールの返事が一度もありません。",
			"返品しましたが、まだ返金されていません。",
			"箱に部品がいくつか入っていませんでした。",
		},
		neutral: []string{
			"兄へのプレゼントとして購入しました。",
			"届くまで四日かかりました。",
			"いくつかの機種を比較してからこれを選びました。",
			"梱包はシンプルでした。",
		},
	},
	{
		tag: "nl", weight: 2.5, sep: " ", initial: true,
		names: []string{"Emma", "Daan", "Sanne", "Bram", "Lotte", "Jeroen", "Fleur", "Thijs", "Anouk", "Ruben"},
		titles: [6][]string{
			1: {"Weggegooid geld", "Na een week kapot", "Niet kopen"},
			2: {"Teleurstellend", "Niet zoals beschreven", "Had meer verwacht"},
			3: {"Redelijk", "Gaat wel", "Niet slecht, niet goed"},
			4: {"Erg goed", "Goede aankoop", "Over het algemeen tevreden"},
			5: {"Helemaal top!", "Beste aankoop van het jaar", "Overtreft mijn verwachtingen"},
		},
		pos: []string{
			"Werkt precies zoals beschreven.",
			"De afwerking is uitstekend.",
			"De installatie duurde nog geen vijf minuten.",
			"Ik gebruik het elke dag en het heeft me nog nooit in de steek gelaten.",
			"Goede prijs-kwaliteitverhouding.",
			"De klantenservice beantwoordde mijn vraag binnen een uur.",
		},
		mid: []string{
			"Het doet wat het moet doen, meer niet.",
			"De kwaliteit is in orde, maar de prijs is wat aan de hoge kant.",
			"De handleiding kan duidelijker.",
			"Voldoende voor af en toe gebruik.",
			"Na een maand zijn er al gebruikssporen te zien.",
		},
		neg: []string{
			"Na twee weken werkte het niet meer.",
			"Het materiaal voelt goedkoop aan.",
			"Het lijkt in niets op de foto's.",
			"De klantenservice heeft nooit op mijn e-mails gereageerd.",
			"Ik heb het teruggestuurd en wacht nog steeds op mijn geld.",
			"Er ontbraken meerdere onderdelen in de doos.",
		},
		neutral: []string{
			"Ik heb het gekocht als cadeau voor mijn broer.",
			"De levering duurde vier dagen.",
			"Ik heb eerst verschillende modellen vergeleken.",
			"De verpakking was eenvoudig en recyclebaar.",
		},
	},
	{
		tag: "pl", weight: 1.5, sep: " ", initial: true,
		names: []string{"Anna", "Piotr", "Katarzyna", "Tomasz", "Magdalena", "Michał", "Agnieszka", "Paweł", "Zofia", "Jakub"},
		titles: [6][]string{
			1: {"Wyrzucone pieniądze", "Zepsuł się po tygodniu", "Nie polecam"},
			2: {"Rozczarowanie", "Niezgodny z opisem", "Spodziewałem się więcej"},
			3: {"Może być", "Przeciętny", "Spełnia swoje zadanie, mniej więcej"},
			4: {"Bardzo dobry", "Udany zakup", "Ogólnie jestem zadowolony"},
			5: {"Rewelacja!", "Najlepszy zakup w tym roku", "Przerósł moje oczekiwania"},
		},
		pos: []string{
			"Działa dokładnie tak, jak opisano.",
			"Wykonanie jest znakomite.",
			"Instalacja zajęła mniej niż pięć minut.",
			"Używam go codziennie i nigdy mnie nie zawiódł.",
			"Świetny stosunek jakości do ceny.",
			"Obsługa klienta odpowiedziała na moje pytanie w ciągu godziny.",
		},
		mid: []string{
			"Robi to, co powinien, nic więcej.",
			"Jakość jest w porządku, ale cena trochę wysoka.",
			"Instrukcja mogłaby być jaśniejsza.",
			"Wystarczy do okazjonalnego użytku.",
			"Po miesiącu widać już pierwsze ślady użytkowania.",
		},
		neg: []string{
			"Przestał działać po dwóch tygodniach.",
			"Materiał wydaje się tani.",
			"Wygląda zupełnie inaczej niż na zdjęciach.",
			"Obsługa klienta nigdy nie odpowiedziała na moje maile.",
			"Odesłałem go i nadal czekam na zwrot pieniędzy.",
			"W pudełku brakowało kilku części.",
		},
		neutral: []string{
			"Kupiłem go jako prezent dla brata.",
			"Dostawa trwała cztery dni.",
			"Przed zakupem porównałem kilka modeli.",
			"Opakowanie było proste i nadaje się do recyklingu.",
		},
	},
}

// productNames are the readable slugs of demo product ids. Beyond the list,
// ids get a numeric suffix ("desk-lamp-2").
var productNames = []string{
	"espresso-machine", "noise-cancelling-headphones", "trail-running-shoes",
	"standing-desk", "cast-iron-skillet", "robot-vacuum", "mechanical-keyboard",
	"yoga-mat", "electric-toothbrush", "air-fryer", "hiking-backpack",
	"wireless-mouse", "smart-watch", "office-chair", "chefs-knife",
	"bluetooth-speaker", "rain-jacket", "water-bottle", "desk-lamp",
	"coffee-grinder", "baby-stroller", "gaming-monitor", "kettle",
	"camping-tent", "e-reader", "blender", "winter-boots", "usb-c-hub",
	"duvet", "sunglasses", "road-bike-helmet", "phone-case", "french-press",
	"dumbbell-set", "portable-charger", "garden-hose", "webcam", "toaster",
	"sleeping-bag", "fitness-tracker", "rice-cooker", "travel-pillow",
	"drone", "vacuum-flask", "wool-socks", "action-camera", "dish-rack",
	"laptop-stand", "bread-maker", "beard-trimmer", "ceramic-teapot",
	"wall-clock", "board-game", "leather-wallet", "tripod", "houseplant-pot",
}
