package microbench

import "fmt"

// D6 Coherence, Common Sense & LM: commonsense continuation, story
// coherence, and bits-per-byte on fresh text.

var continuationSpec = taskSpec{
	Task: Task{
		ID: "continuation", Domain: "D6", Name: "Commonsense continuation", Reduction: MeanByte,
		Levels: map[int]string{
			1: "physical cause and effect",
			2: "everyday routines and social situations",
			3: "two-step inference",
		},
		About: "A situation and four endings written for it: one sensible, three grammatical but wrong for the situation (some contradict it); plus hand-written items.",
	},
	Size: 60, gen: genContinuation,
}

// situation: a stem ending where the continuation starts, the sensible
// ending and three wrong ones. {Name}, {he}, {his}, {him} are filled with a
// random person.
type situation struct {
	stem, good string
	bad        [3]string
}

var situations = [3][]situation{
	{ // level 1
		{"{Name} was very thirsty, so {he}", "drank a big glass of water.", [3]string{"put on a warm coat.", "painted the fence.", "turned off the radio."}},
		{"It started to rain heavily, so {Name}", "opened an umbrella.", [3]string{"put on sunglasses.", "watered the garden.", "turned on the fan."}},
		{"{Name} dropped a glass on the stone floor, and it", "broke into pieces.", [3]string{"started to sing.", "grew into a tree.", "ran out of the room."}},
		{"The room was too dark to read in, so {Name}", "turned on the lamp.", [3]string{"opened the freezer.", "put on a pair of gloves.", "ate a bowl of soup."}},
		{"{Name} was very tired after the long day, so {he}", "went to bed early.", [3]string{"ran a marathon.", "started to paint the house.", "climbed onto the roof."}},
		{"The soup was far too hot to eat, so {Name}", "waited for it to cool down.", [3]string{"put it on the stove to heat it up.", "drank it all at once.", "put on {his} winter boots."}},
		{"{Name}'s hands were covered in mud, so {he}", "washed them with soap and water.", [3]string{"read a book about trains.", "put on a pair of white gloves.", "buried them in the sand."}},
		{"The phone rang, so {Name}", "answered the call.", [3]string{"planted it in the garden.", "put it in the washing machine.", "fed it to the cat."}},
		{"Someone knocked on the front door, so {Name}", "went to open the door.", [3]string{"turned off the oven.", "climbed onto the roof.", "went to sleep in the bath."}},
		{"The plant's leaves were dry and brown, so {Name}", "gave it some water.", [3]string{"put it in the freezer.", "painted the leaves green.", "took it for a walk."}},
		{"It was freezing cold outside, so {Name}", "put on a warm coat and a hat.", [3]string{"went swimming in the sea.", "turned on the air conditioner.", "took off {his} shoes."}},
		{"The sun was very bright, so {Name}", "put on {his} sunglasses.", [3]string{"turned on all the lights.", "lit a candle.", "put on {his} raincoat."}},
		{"{Name} was hungry after school, so {he}", "made {him}self a sandwich.", [3]string{"went to the dentist.", "washed the car.", "took a long nap on the bus."}},
		{"The ice cream was left in the hot sun, so it", "melted.", [3]string{"froze solid.", "grew bigger.", "started to bark."}},
		{"{Name}'s car ran out of gas, so {he}", "walked to the gas station.", [3]string{"drove faster.", "washed the windows.", "turned up the radio."}},
	},
	{ // level 2
		{"{Name} missed the last bus home, so {he}", "took a taxi home.", [3]string{"went to the movies.", "bought a new bus.", "took the bus home."}},
		{"{Name}'s friend was sad about losing the game, so {Name}", "gave {his} friend a hug.", [3]string{"laughed and walked away.", "painted the kitchen.", "went to sleep on the field."}},
		{"It was {Name}'s birthday, so {his} family", "baked {him} a cake.", [3]string{"forgot who {he} was.", "sold {his} bed.", "sent {him} to the dentist."}},
		{"{Name} could not find the way to the museum, so {he}", "asked someone for directions.", [3]string{"went home to sleep.", "bought a new pair of shoes.", "painted the museum."}},
		{"The library was about to close, so {Name}", "quickly chose a book to take home.", [3]string{"started to read a long novel there.", "opened a new library.", "took a nap on the sofa there."}},
		{"{Name} spilled juice on the table, so {he}", "wiped it up with a cloth.", [3]string{"poured more juice on it.", "went outside to fly a kite.", "put on {his} coat."}},
		{"{Name} forgot {his} umbrella, and it rained all day, so {he}", "got very wet.", [3]string{"stayed completely dry.", "got a sunburn.", "won a prize."}},
		{"The baby was crying because it was hungry, so {Name}", "gave it some milk.", [3]string{"took away its food.", "washed the car.", "put on {his} running shoes."}},
		{"{Name} wanted to learn to play the guitar, so {he}", "took lessons every week.", [3]string{"bought a bicycle.", "learned to swim.", "sold {his} guitar."}},
		{"The shop was closed, so {Name}", "came back the next morning.", [3]string{"bought everything {he} needed there.", "walked inside and paid.", "closed it again."}},
		{"{Name} had a bad cold, so {he}", "stayed in bed with hot tea.", [3]string{"went swimming in the icy lake.", "ran ten miles in the rain.", "painted the garden shed."}},
		{"The floor was covered in crumbs, so {Name}", "swept it with the broom.", [3]string{"threw more crumbs on it.", "painted the ceiling.", "went to the beach."}},
		{"The new shoes were too small for {Name}, so {he}", "took them back to the shop.", [3]string{"wore them on {his} hands.", "bought two more pairs in the same size.", "planted them in the garden."}},
		{"{Name}'s dog was waiting by the door with its leash, so {he}", "took it outside for a walk.", [3]string{"put it in the washing machine.", "read it the newspaper.", "gave it a phone."}},
		{"{Name} woke up late for school, so {he}", "rushed to get dressed.", [3]string{"went back to sleep for three hours.", "baked a large cake.", "read the whole newspaper slowly."}},
	},
	{ // level 3
		{"{Name} saw dark clouds and heard thunder, so before going out {he}", "took an umbrella.", [3]string{"put on sunscreen.", "took off {his} coat.", "packed {his} swimsuit."}},
		{"{Name} noticed that the milk smelled sour, so {he}", "poured it down the sink.", [3]string{"drank the whole bottle.", "gave it to the baby.", "used it to make tea."}},
		{"The cake needed eggs, but the fridge was empty, so {Name}", "bought eggs at the shop.", [3]string{"took the eggs from the fridge.", "put the fridge in the oven.", "baked the empty box."}},
		{"{Name}'s bike had a flat tire, so {he}", "pumped air into it.", [3]string{"rode it faster.", "painted the tire red.", "put it in the fridge."}},
		{"{Name} heard the smoke alarm and smelled burning toast, so {he}", "ran to the kitchen.", [3]string{"went back to sleep.", "turned up the music.", "went to the garden to read."}},
		{"The path was covered in ice, so {Name}", "walked slowly and carefully.", [3]string{"ran as fast as {he} could.", "took off {his} shoes.", "poured water on it."}},
		{"{Name} wanted to see the stars clearly, so {he}", "left the city on a clear night.", [3]string{"went out at noon.", "turned on every light in the house.", "stayed in the city center."}},
		{"{Name}'s plant grew toward the window, because it", "needed the sunlight.", [3]string{"was afraid of the dark.", "wanted to go outside and play.", "did not like the wall."}},
		{"{Name} saved a little money every week, so after a year {he}", "had enough to buy a new bike.", [3]string{"had less money than before.", "had forgotten how to count.", "owed money to everyone."}},
		{"The river had flooded the road, so {Name}", "took a longer road around it.", [3]string{"drove straight through the deep water.", "went fishing on the road.", "went swimming in the library."}},
		{"{Name}'s glasses fogged up when {he} came in from the cold, so {he}", "wiped them with a cloth.", [3]string{"put them in the freezer.", "painted them black.", "threw them away."}},
		{"The batteries in the flashlight were dead, so {Name}", "put in new ones.", [3]string{"shook it until it sang.", "turned it on.", "charged the car."}},
		{"The cat had not eaten all day and kept meowing by its bowl, so {Name}", "filled the bowl with food.", [3]string{"took the bowl away.", "gave the cat a bath.", "put the cat in the garden shed."}},
		{"{Name} was going to the beach on a hot, sunny day, so {he}", "packed sunscreen.", [3]string{"packed a snow shovel.", "wore a thick wool sweater.", "left {his} swimsuit at home."}},
		{"The noise from the party next door kept {Name} awake, so {he}", "put in earplugs.", [3]string{"turned up {his} own music.", "drank a cup of strong coffee.", "opened all the windows."}},
	},
}

func genContinuation(g *gen, n int) ([]Item, error) {
	var byLevel [3][]Item
	for li, ss := range situations {
		for _, s := range ss {
			p := pick(g, people)
			ch, gold := g.choices(p.fill(s.good), p.fill(s.bad[0]), p.fill(s.bad[1]), p.fill(s.bad[2]))
			byLevel[li] = append(byLevel[li], Item{Context: p.fill(s.stem), Choices: ch, Gold: gold, Level: li + 1})
		}
	}
	return takeByLevel(g, byLevel[:], n)
}

var storySpec = taskSpec{
	Task: Task{
		ID: "story", Domain: "D6", Name: "Story coherence", Reduction: Sum, Grouped: true,
		Levels: map[int]string{
			1: "the ending follows directly from the changed sentence",
			2: "the ending follows from the changed sentence and the setting together",
			3: "the ending needs an unstated step of inference",
		},
		About: "Contrast pairs: one short story told two ways that differ in one sentence, with the same two endings; each version has its own coherent ending, so a model that prefers one ending for itself gets one of the two.",
	},
	Size: 60, gen: genStory,
}

// story: a setting, two versions of the middle sentence and the ending
// that fits each. {Name}, {he}, {He}, {his}, {His}, {him} are filled.
type story struct {
	level             int
	setup, midA, midB string
	endA, endB        string
}

var stories = []story{
	{1, "{Name} planted tomato seeds in the spring.", "{He} watered them every day.", "{He} forgot to water them all summer.", "By August the plants were full of ripe tomatoes.", "By August the plants were dry and dead."},
	{1, "{Name} went outside without an umbrella.", "Suddenly it started to pour with rain.", "The sky stayed clear all afternoon.", "{He} came home soaking wet.", "{He} came home completely dry."},
	{1, "{Name} had a math test on Friday.", "{He} studied every evening that week.", "{He} played video games every evening instead of studying.", "{He} got one of the best marks in the class.", "{He} failed the test."},
	{1, "{Name} baked a cake for the party.", "{He} took it out of the oven on time.", "{He} forgot it in the oven for two hours.", "Everyone said it was delicious.", "It was burnt, and nobody ate it."},
	{1, "{Name} went to the shop to buy milk.", "The shop was open.", "The shop was closed for the holiday.", "{He} came home with a bottle of milk.", "{He} came home without any milk."},
	{1, "{Name} had a job interview in the city.", "{He} left home an hour early.", "{His} train was stuck for an hour on the way.", "{He} arrived ten minutes before the interview.", "{He} arrived at the interview very late."},
	{1, "{Name} signed up for a piano competition.", "{He} practiced for hours every day.", "{He} never found time to practice.", "{He} played the piece perfectly.", "{He} forgot the notes halfway through the piece."},
	{1, "{Name} went fishing at the lake.", "The fish were biting all morning.", "Not a single fish came near the hook.", "{He} came home with a full bucket.", "{He} came home with an empty bucket."},
	{1, "{Name} waited at the bus stop before school.", "The bus came on time.", "The bus broke down on the way.", "{He} got to school before the bell.", "{He} had to walk to school and was late."},
	{1, "{Name} hung the wet laundry outside.", "It was a sunny, windy day.", "It rained all afternoon.", "By evening the clothes were dry.", "By evening the clothes were still wet."},
	{2, "{Name} wanted to see the sunrise.", "{He} woke up at five in the morning.", "{He} slept until noon.", "{He} watched the sky turn orange over the hills.", "{He} was sad to have missed it."},
	{2, "{Name}'s phone battery was almost empty.", "{He} plugged it into the charger.", "{He} forgot to charge it.", "By the evening it was fully charged.", "By the evening the phone had switched off."},
	{2, "{Name} entered a running race.", "{He} had trained every morning for months.", "{He} had hurt {his} ankle the day before.", "{He} finished the race in first place.", "{He} had to stop after the first mile."},
	{2, "{Name} was walking the dog in the park.", "The dog saw a squirrel.", "The dog was very tired.", "It pulled hard on the leash and barked.", "It lay down on the grass and rested."},
	{2, "{Name} painted the garden fence white.", "The weather stayed dry for a week.", "An hour later, a heavy storm began.", "The paint dried smooth and clean.", "The rain washed streaks of paint down the fence."},
	{2, "{Name} wanted to buy a new bike.", "{He} saved {his} pocket money for a year.", "{He} spent {his} pocket money on candy every week.", "In the end {he} had enough money for the bike.", "In the end {he} still could not afford the bike."},
	{2, "{Name} came home late at night.", "{He} found {his} keys in {his} pocket.", "{He} realized that {he} had lost {his} keys.", "{He} unlocked the door and went inside.", "{He} had to wake up a neighbor to get in."},
	{2, "{Name} made pasta for dinner.", "{He} added salt and fresh herbs.", "{He} poured in sugar by mistake instead of salt.", "The pasta tasted wonderful.", "The pasta tasted strangely sweet."},
	{2, "{Name} built a snowman in the garden.", "The next day was even colder.", "The next day was warm and sunny.", "A week later the snowman was still standing.", "By evening the snowman had melted."},
	{2, "{Name} found a lost kitten in the rain.", "{He} took it home and dried it with a towel.", "{He} had to leave it under a bench.", "Soon the kitten was warm and purring.", "The kitten stayed cold and wet under the bench."},
	{2, "{Name} finished {his} homework on Sunday.", "{He} put it in {his} school bag.", "{He} left it on the kitchen table.", "On Monday {he} handed it in to the teacher.", "On Monday {he} had nothing to hand in."},
	{2, "There was a power cut in {Name}'s house.", "{He} had candles in the drawer.", "{He} could not find any candles or flashlights.", "{He} lit a candle and kept reading.", "{He} sat in the dark until the power came back."},
	{2, "{Name} spent the whole day at the beach.", "{He} wore sunscreen and a hat.", "{He} forgot to wear any sunscreen.", "That evening {his} skin felt fine.", "That evening {his} skin was red and sore."},
	{2, "{Name} had an early flight.", "{His} alarm rang at four o'clock.", "{His} alarm did not ring.", "{He} reached the airport with time to spare.", "{He} woke up after the plane had left."},
	{3, "{Name} could not read the small print on the menu.", "{He} had left {his} glasses at home.", "Then {he} put on {his} reading glasses.", "{He} asked the waiter to read it aloud.", "Now {he} could read every word easily."},
	{3, "{Name} went to bed at ten o'clock.", "Just before, {he} had drunk three cups of strong coffee.", "Just before, {he} had drunk a cup of warm milk.", "{He} lay awake for hours.", "{He} fell asleep within minutes."},
	{3, "{Name} and {his} friends built a campfire.", "Before bed, they poured water over it.", "They went to bed and left it burning.", "In the morning there were only cold, wet ashes.", "During the night, the wind blew sparks into the dry grass."},
	{3, "{Name} wanted to skate on the pond.", "It had been freezing for two weeks.", "It had been warm for days.", "The ice was thick, so {he} skated all afternoon.", "The ice was too thin, so {he} stayed on the shore."},
	{3, "{Name} borrowed a book from the library.", "{He} returned it on time.", "{He} returned it two months late.", "{He} did not have to pay anything.", "{He} had to pay a fine."},
	{3, "{Name} put bread in the toaster.", "{He} stayed in the kitchen and watched it.", "{He} went into the garden to take a long phone call.", "{He} took out two golden slices of toast.", "When {he} came back, the toast was black and smoking."},
	{3, "{Name} left a bowl of ice cream on the table.", "The kitchen was very hot that afternoon.", "{He} ate it as soon as {he} sat down.", "Soon the ice cream was a sweet puddle.", "The bowl was empty in a few minutes."},
	{3, "{Name} planted two sunflowers.", "{He} put them by the sunny wall of the house.", "{He} put them in the dark corner behind the shed.", "They grew taller than the fence.", "They stayed small and pale."},
	{3, "{Name}'s bicycle had no lock.", "{He} always kept it in the locked garage.", "{He} left it outside the station overnight.", "The bicycle was still safe years later.", "In the morning the bicycle was gone."},
}

func genStory(g *gen, n int) ([]Item, error) {
	if n%2 != 0 || n/2 > len(stories) {
		return nil, fmt.Errorf("%d items need %d stories (have %d) and an even count", n, n/2, len(stories))
	}
	var out []Item
	for i, s := range sample(g, stories, n/2) {
		p := pick(g, people)
		out = append(out, g.contrastPair(fmt.Sprintf("p%02d", i+1), s.level,
			p.fill(s.setup+" "+s.midA), p.fill(s.setup+" "+s.midB), p.fill(s.endA), p.fill(s.endB))...)
	}
	return out, nil
}

var bpbSpec = taskSpec{
	Task: Task{
		ID: "bpb", Domain: "D6", Name: "Bits per byte on fresh text", Reduction: BitsPerByte,
		Levels: map[int]string{
			1: "simple narrative",
			2: "descriptive and explanatory prose",
			3: "instructions and technical prose",
		},
		About: "Original prose written for this suite (never published before it), scored with a sliding window of 512 tokens; −Σlog₂p over the documents divided by their UTF-8 bytes, mapped logarithmically from 2.5 (score 0) to 0.5 (score 100).",
	},
	Size: 6,
}
