package microbench

import "fmt"

// D3 World Knowledge: capitals and countries, elementary science, everyday
// facts. Cloze prompts; mean_byte because answers differ in length.

var capitalsSpec = taskSpec{
	Task: Task{
		ID: "capitals", Domain: "D3", Name: "Capitals and countries", Reduction: MeanByte,
		Levels: map[int]string{
			1: "widely known countries",
			2: "less often taught countries",
			3: "countries whose best-known city is not the capital (that city is a distractor)",
		},
		About: "The capital of a country, or the country of a capital, among capitals or countries of the same level; only capitals without dispute are used.",
	},
	Size: 64, gen: genCapitals,
}

// country: name as used after "of" (with "the" where English needs it),
// capital, and the best-known other city for level 3.
type country struct{ name, capital, trap string }

var countries = [3][]country{
	{
		{"France", "Paris", ""}, {"Germany", "Berlin", ""}, {"Italy", "Rome", ""},
		{"Spain", "Madrid", ""}, {"Japan", "Tokyo", ""}, {"Russia", "Moscow", ""},
		{"the United Kingdom", "London", ""}, {"Egypt", "Cairo", ""}, {"Ireland", "Dublin", ""},
		{"Greece", "Athens", ""}, {"Portugal", "Lisbon", ""}, {"China", "Beijing", ""},
	},
	{
		{"Sweden", "Stockholm", ""}, {"Norway", "Oslo", ""}, {"Poland", "Warsaw", ""},
		{"Austria", "Vienna", ""}, {"Argentina", "Buenos Aires", ""}, {"Mexico", "Mexico City", ""},
		{"South Korea", "Seoul", ""}, {"Thailand", "Bangkok", ""}, {"Kenya", "Nairobi", ""},
		{"Peru", "Lima", ""}, {"Cuba", "Havana", ""}, {"Finland", "Helsinki", ""},
		{"Denmark", "Copenhagen", ""}, {"Hungary", "Budapest", ""}, {"the Philippines", "Manila", ""},
		{"Iran", "Tehran", ""}, {"Iraq", "Baghdad", ""}, {"Saudi Arabia", "Riyadh", ""},
		{"Ethiopia", "Addis Ababa", ""}, {"Ghana", "Accra", ""}, {"Belgium", "Brussels", ""},
		{"Chile", "Santiago", ""}, {"Colombia", "Bogotá", ""}, {"Romania", "Bucharest", ""},
	},
	{
		{"Canada", "Ottawa", "Toronto"}, {"Australia", "Canberra", "Sydney"},
		{"Turkey", "Ankara", "Istanbul"}, {"Brazil", "Brasília", "Rio de Janeiro"},
		{"Switzerland", "Bern", "Zurich"}, {"New Zealand", "Wellington", "Auckland"},
		{"Nigeria", "Abuja", "Lagos"}, {"Morocco", "Rabat", "Casablanca"},
		{"Vietnam", "Hanoi", "Ho Chi Minh City"}, {"India", "New Delhi", "Mumbai"},
		{"the United States", "Washington, D.C.", "New York"}, {"Pakistan", "Islamabad", "Karachi"},
	},
}

func genCapitals(g *gen, n int) ([]Item, error) {
	var byLevel [3][]Item
	for li, cs := range countries {
		var capitals, names []string
		for _, c := range cs {
			capitals = append(capitals, c.capital)
			names = append(names, c.name)
		}
		for _, c := range cs {
			var wrong []string
			if c.trap != "" {
				wrong = append(wrong, c.trap)
			}
			wrong = append(wrong, others(g, capitals, 3-len(wrong), c.capital)...)
			ch, gold := g.choices(c.capital, wrong...)
			byLevel[li] = append(byLevel[li], Item{
				Context: "The capital of " + c.name + " is", Choices: ch, Gold: gold, Level: li + 1,
			})
			ch, gold = g.choices(c.name, others(g, names, 3, c.name)...)
			byLevel[li] = append(byLevel[li], Item{
				Context: c.capital + " is the capital of", Choices: ch, Gold: gold, Level: li + 1,
			})
		}
	}
	return takeByLevel(g, byLevel[:], n)
}

var scienceSpec = taskSpec{
	Task: Task{
		ID: "science", Domain: "D3", Name: "Elementary science", Reduction: MeanByte,
		Levels: map[int]string{
			1: "facts taught in the first school years",
			2: "facts taught later in primary school",
			3: "facts that run against a common intuition",
		},
		About: "Animal classes and states of matter from tables, plus hand-written items on the Earth, the body, plants, forces and light. State-of-matter items have three choices, the rest four, so chance is the mean of 1/k.",
	},
	Size: 60, gen: genScience,
}

var (
	animalClasses = []string{"mammal", "bird", "fish", "reptile", "amphibian", "insect"}
	// animal, class, level
	animals = []struct {
		name, class string
		level       int
	}{
		{"cow", "mammal", 1}, {"horse", "mammal", 1}, {"lion", "mammal", 1}, {"rabbit", "mammal", 1},
		{"eagle", "bird", 1}, {"sparrow", "bird", 1}, {"parrot", "bird", 1},
		{"salmon", "fish", 1}, {"goldfish", "fish", 1}, {"ant", "insect", 1}, {"bee", "insect", 1},
		{"snake", "reptile", 1}, {"frog", "amphibian", 1},
		{"elephant", "mammal", 2}, {"monkey", "mammal", 2}, {"owl", "bird", 2}, {"duck", "bird", 2},
		{"trout", "fish", 2}, {"lizard", "reptile", 2}, {"crocodile", "reptile", 2},
		{"toad", "amphibian", 2}, {"beetle", "insect", 2}, {"grasshopper", "insect", 2},
		{"whale", "mammal", 3}, {"dolphin", "mammal", 3}, {"bat", "mammal", 3},
		{"penguin", "bird", 3}, {"ostrich", "bird", 3}, {"shark", "fish", 3},
		{"turtle", "reptile", 3}, {"salamander", "amphibian", 3}, {"butterfly", "insect", 3},
	}
	states = []string{"solid", "liquid", "gas"}
	// substance, state at room temperature, level
	substances = []struct {
		name, state string
		level       int
	}{
		{"iron", "solid", 1}, {"water", "liquid", 1}, {"wood", "solid", 1}, {"milk", "liquid", 1},
		{"salt", "solid", 2}, {"oxygen", "gas", 2}, {"cooking oil", "liquid", 2}, {"helium", "gas", 2},
		{"mercury", "liquid", 3}, {"carbon dioxide", "gas", 3}, {"glass", "solid", 3}, {"nitrogen", "gas", 3},
	}
)

func genScience(g *gen, n int) ([]Item, error) {
	var byLevel [3][]Item
	for _, a := range animals {
		ch, gold := g.choices(a.class, others(g, animalClasses, 3, a.class)...)
		byLevel[a.level-1] = append(byLevel[a.level-1], Item{
			Context: fmt.Sprintf("Scientists group animals into classes. The %s is a kind of", a.name),
			Choices: ch, Gold: gold, Level: a.level,
		})
	}
	for _, s := range substances {
		ch, gold := g.choices(s.state, others(g, states, 2, s.state)...)
		byLevel[s.level-1] = append(byLevel[s.level-1], Item{
			Context: fmt.Sprintf("At room temperature, %s is a", s.name),
			Choices: ch, Gold: gold, Level: s.level,
		})
	}
	return takeByLevel(g, byLevel[:], n)
}

var everydaySpec = taskSpec{
	Task: Task{
		ID: "everyday", Domain: "D3", Name: "Everyday facts", Reduction: MeanByte,
		Levels: map[int]string{
			1: "colors of familiar things, legs of familiar animals",
			2: "what everyday tools are for",
			3: "where people go to do things; hand-written facts about time and daily life",
		},
		About: "Facts every child learns about things, animals, tools and places, from tables plus hand-written items.",
	},
	Size: 60, gen: genEveryday,
}

var (
	colorWords   = []string{"green", "white", "yellow", "blue", "black", "red", "brown", "orange", "purple", "pink"}
	thingColours = [][2]string{
		{"fresh grass", "green"}, {"snow", "white"}, {"a ripe banana", "yellow"}, {"the sky on a clear day", "blue"},
		{"coal", "black"}, {"a ripe tomato", "red"}, {"chocolate", "brown"}, {"a carrot", "orange"},
		{"a lemon", "yellow"}, {"milk", "white"}, {"a fire truck", "red"}, {"a crow", "black"},
	}
	legWords  = []string{"no legs", "two legs", "four legs", "six legs", "eight legs"}
	animalLeg = [][2]string{
		{"A spider has", "eight legs"}, {"An ant has", "six legs"}, {"A bee has", "six legs"},
		{"A dog has", "four legs"}, {"A horse has", "four legs"}, {"A chicken has", "two legs"},
		{"A duck has", "two legs"}, {"A snake has", "no legs"}, {"A cat has", "four legs"},
		{"A beetle has", "six legs"},
	}
	// purpose, tool
	tools = [][2]string{
		{"To cut paper, you use", "scissors"}, {"To dig a hole in the garden, you use", "a shovel"},
		{"To hit a nail into wood, you use", "a hammer"}, {"To eat soup, you use", "a spoon"},
		{"To brush your teeth, you use", "a toothbrush"}, {"To dry your hands, you use", "a towel"},
		{"To sweep the floor, you use", "a broom"}, {"To unlock a door, you use", "a key"},
		{"To see in the dark, you use", "a flashlight"}, {"To tell the time, you use", "a clock"},
		{"To stay dry in the rain, you use", "an umbrella"}, {"To measure a line on paper, you use", "a ruler"},
		{"To take a photo, you use", "a camera"}, {"To boil water for tea, you use", "a kettle"},
		{"To write a letter by hand, you use", "a pen"},
		{"To sew a button onto a shirt, you use", "a needle"}, {"To comb your hair, you use", "a comb"},
	}
	// purpose, place
	places = [][2]string{
		{"To borrow a book, people go to the", "library"}, {"To buy fresh bread, people go to the", "bakery"},
		{"To catch a plane, people go to the", "airport"}, {"To mail a letter, people go to the", "post office"},
		{"To see lions and giraffes, people go to the", "zoo"}, {"To watch a new movie, people go to the", "movie theater"},
		{"To buy medicine, people go to the", "pharmacy"}, {"To look at old paintings, people go to the", "museum"},
		{"To have a broken car fixed, people go to the", "garage"}, {"To catch a train, people go to the", "station"},
		{"To have their teeth checked, people go to the", "dentist"}, {"To swim laps indoors, people go to the", "swimming pool"},
		{"To open a savings account, people go to the", "bank"}, {"To get a haircut, people go to the", "barber"},
		{"To watch a football match, people go to the", "stadium"},
	}
)

func genEveryday(g *gen, n int) ([]Item, error) {
	var byLevel [3][]Item
	add := func(level int, ctx, gold string, pool []string) {
		ch, gi := g.choices(gold, others(g, pool, 3, gold)...)
		byLevel[level-1] = append(byLevel[level-1], Item{Context: ctx, Choices: ch, Gold: gi, Level: level})
	}
	for _, t := range thingColours {
		add(1, fmt.Sprintf("The color of %s is", t[0]), t[1], colorWords)
	}
	for _, a := range animalLeg {
		add(1, a[0], a[1], legWords)
	}
	var toolNames, placeNames []string
	for _, t := range tools {
		toolNames = append(toolNames, t[1])
	}
	for _, p := range places {
		placeNames = append(placeNames, p[1])
	}
	for _, t := range tools {
		add(2, t[0], t[1], toolNames)
	}
	for _, p := range places {
		add(3, p[0], p[1], placeNames)
	}
	// The hand-written items are level 3, so the generated share of level 3
	// is smaller: draw levels 1 and 2 evenly and fill the rest from level 3.
	low := n/3 + 1
	return takeQuotas(g, byLevel[:], []int{low, low, n - 2*low})
}
