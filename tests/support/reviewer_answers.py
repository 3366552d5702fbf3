"""Answers to the chapter's 8 written questions as an outside reviewer wrote them, in both languages, with their truth.

The marking page's suggestions are measured on this table (tests/unit/test_marking_table.py) and on classes made
from it (benchmarks/bench_marking.py). It was written the way students write, not against the rubric's terms and
patterns: per question and language at least three **right** answers in a student's own words (none copies the
reference answer's phrasing) and at least four **wrong** ones of these kinds:

* ``near_miss`` — one minor point right, the question's main point wrong;
* ``negation`` — a right statement negated (不会 / 并不 / not / never …);
* ``inverted`` — a claim turned round (smaller for larger, before for after);
* ``wrong_conclusion`` — a right fact, then a conclusion that contradicts a point.

Each row says which rubric points it states rightly (``ticks``, indices in rubric order) and which it states the
opposite of (``spoils``). Its true mark follows the rubric's rule for contradictions
(:func:`coursekit.marking.rubric.contradiction_cap`, one line in the rubric's header): a contradicted point is not
given, and an answer that contradicts one gets at most a quarter of the question. A new answer is one new row.
"""
from dataclasses import dataclass

from coursekit.marking.rubric import contradiction_cap

RIGHT, WRONG_KINDS = "right", ("near_miss", "negation", "inverted", "wrong_conclusion")


@dataclass(frozen=True)
class Reviewed:
    question: str
    lang: str
    kind: str          # RIGHT or one of WRONG_KINDS
    text: str
    ticks: tuple       # rubric points it states rightly
    spoils: tuple = ()  # rubric points it states the opposite of

    @property
    def right(self) -> bool:
        return self.kind == RIGHT

    def truth(self, rubric) -> tuple:
        """One bool per rubric point: what a careful marker ticks (the contradiction rule applied)."""
        ticks = tuple(i in self.ticks and i not in self.spoils for i in range(len(rubric.points)))
        return contradiction_cap(rubric, ticks, bool(self.spoils))


def _rows(question: str, lang: str, *rows) -> list:
    return [Reviewed(question, lang, kind, text, tuple(ticks), tuple(spoils)) for kind, text, ticks, spoils in rows]


TABLE = [
    # ---- 实验题 1 / Lab question 1: points 0 most rows' top weight ≈ 1 (the numbers seen), 1 not every row (0.352),
    #      2 scaled: 0.2–0.47, flatter, order kept, 3 saturation, tiny gradients
    *_rows("q_lab1_no_scale", "zh",
           (RIGHT, "head_dim 是 64 时，不乘缩放因子的分数大概在 ±8 的范围里波动（64 个独立项相加，标准差是 8），一行里的分数"
                   "彼此拉得很开。softmax 取指数以后，几分的差距就会变成上千倍的差别，所以大部分行几乎把全部权重都给了一个位置（0.99 上下）。"
                   "不过第 1 行是例外：它有好几个分数离得很近，最大的权重只有 0.35 左右。权重这么集中时梯度几乎为零，模型很难学。",
            (0, 1, 3), ()),
           (RIGHT, "没有缩放，点积的标准差相当于 √head_dim，也就是 8 左右，于是分数之间相差很大。指数把这种差距放大成悬殊的比例，"
                   "结果多数行的最大权重是 0.99 左右，几乎是 one-hot。是否接近 one-hot 取决于最高分领先其他所有分数多少："
                   "第 1 行前三个分数很接近，所以最大权重才 0.352。乘上缩放因子以后，每行最大的权重只有 0.2 到 0.47。", (0, 1, 2), ()),
           (RIGHT, "分数的尺度随维度变大：64 维时它的波动大约是缩放后的 8 倍。差几个单位经过 exp 就成了几百上千倍，所以除了第 1 行"
                   "（三个分数挤在一起），每一行最大的权重都在 0.98 以上。这样的 softmax 已经饱和，反向传播时梯度非常小；"
                   "缩放只是把分数整体缩小，不会改变谁大谁小。", (0, 1, 3), ()),
           ("near_miss", "不缩放的话 softmax 会进入饱和区，梯度变得很小；但是每一行的权重其实都差不多平均，因为 64 个数相加以后"
                         "正负互相抵消了，分数反而挤在 0 附近。", (3,), (0,)),
           ("negation", "不缩放时分数的标准差并不会变成 8，点积还是在 1 左右，所以 softmax 不会接近 one-hot，最大权重不会接近 1。",
            (), (0,)),
           ("inverted", "缩放以后权重才会变得尖锐：乘上 0.125 让分数更集中，最大的那个更突出；不缩放时每行最大权重在 0.2 到 0.47 之间。",
            (), (0, 2)),
           ("wrong_conclusion", "不缩放时点积的标准差大约是 8，分数之间差距很大，但 softmax 会把这些差距压平，所以四行的最大权重都在 "
                                "0.3 左右，不会接近 one-hot。", (), (0,))),
    *_rows("q_lab1_no_scale", "en",
           (RIGHT, "With head_dim = 64 and no scale factor, the scores swing by roughly ±8 (64 independent terms added up "
                   "give a standard deviation of 8), so the scores in one row end up far from each other. Once softmax "
                   "exponentiates them, a gap of a few units turns into a ratio in the thousands, which is why most rows "
                   "hand nearly all of their weight to a single position (0.99 or so). Row 1 is the exception: several of its scores "
                   "sit close together and its top weight is only around 0.35. With weights this concentrated the "
                   "gradient is almost zero and the model struggles to learn.", (0, 1, 3), ()),
           (RIGHT, "Unscaled, a dot product has a standard deviation of about √head_dim, around 8 here, so the scores "
                   "differ a lot. The exponential blows those differences up into lopsided ratios: in most rows the "
                   "biggest weight is around 0.99, practically one-hot. Whether a row gets there depends on how far the "
                   "top score leads all the rest: row 1 has three scores close together, so its top weight is just 0.352. "
                   "With the scale factor, each row's biggest weight is only 0.2 to 0.47.", (0, 1, 2), ()),
           (RIGHT, "The scale of the scores grows with the dimension: at 64 dimensions they spread about 8 times as widely "
                   "as after scaling. A few units of difference become factors of hundreds or thousands after exp, so "
                   "apart from row 1 (three scores bunched up) every row's largest weight is above 0.98. Such a softmax "
                   "is saturated and backpropagation sees very small gradients; scaling only shrinks the scores, it does "
                   "not change which one is biggest.", (0, 1, 3), ()),
           ("near_miss", "Without scaling the softmax saturates and the gradients get very small; but the weights in each "
                         "row are actually pretty even, because adding up 64 numbers makes positives and negatives cancel, "
                         "so the scores pile up near 0.", (3,), (0,)),
           ("negation", "Without scaling the standard deviation of the scores does not become 8, the dot products stay "
                        "around 1, so the softmax is not close to one-hot and the top weight is not near 1.", (), (0,)),
           ("inverted", "It is the scaling that makes the weights sharp: multiplying by 0.125 squeezes the scores and the "
                        "largest one stands out more; unscaled, each row's largest weight is between 0.2 and 0.47.",
            (), (0, 2)),
           ("wrong_conclusion", "Without scaling the dot products have a standard deviation of about 8 and the scores "
                                "are far apart, but softmax flattens those gaps, so all four rows have a top weight of "
                                "about 0.3 and none is close to one-hot.", (), (0,))),

    # ---- 实验题 2 / Lab question 2: points 0 whole row blocked → NaN, 1 same while a row keeps a position,
    #      2 -1e9 finite → finite weights
    *_rows("q_lab2_neg_inf", "zh",
           (RIGHT, "一般情况下没有区别：被屏蔽的位置取指数都是 0。问题出在某一行所有位置都被挡住的时候：这一行的最大值本身就是 "
                   "-inf，减去最大值这一步变成负无穷减负无穷，结果是 NaN，这一行全坏了。用 -1e9 的话它只是一个很大的负数，"
                   "整行屏蔽时算出来的还是普通的有限数字（大多是平均分配），不会出 NaN。", (0, 1, 2), ()),
           (RIGHT, "如果一行里还剩至少一个能看的位置，两种写法算出的权重完全一致。但 padding 加上因果掩码可能让某一行一个位置都"
                   "不剩，这时稳定 softmax 要算 (-inf) − (-inf)，这是未定义的，得到 NaN，而且 NaN 会一路传下去。-1e9 是个普通的"
                   "有限值，这样的行只会得到一组有限的权重。", (0, 1, 2), ()),
           (RIGHT, "全被屏蔽的那一行会变成 NaN：max 是 -inf，x - max 里出现 -inf 减 -inf。只要不是整行屏蔽，-inf 和 -1e9 没有差别。"
                   "所以 -1e9 更稳妥：最坏情况下得到一行均匀的权重，而不是 NaN。", (0, 1, 2), ()),
           ("negation", "不会出现 NaN：exp(-inf) 等于 0，分母里只是少了几项，就算整行都被屏蔽，也只是得到一行 0，所以 -inf 和 -1e9 "
                        "没有区别。", (), (0,)),
           ("inverted", "用 -1e9 反而容易出 NaN，因为 -1e9 取指数会下溢；-inf 是精确的，exp(-inf) 正好是 0，所以 -inf 更稳妥。",
            (), (0, 2)),
           ("near_miss", "只要每一行还有没被屏蔽的位置，两种写法的结果相同，因为 exp(-inf) = 0。所以在因果掩码里换成 -inf 完全没问题，"
                         "任何情况下都不会出现 NaN。", (1,), (0,)),
           ("wrong_conclusion", "整行都被屏蔽时，softmax 会算 -inf - (-inf)，但 numpy 会把它当成 0 处理，所以结果还是均匀分布，"
                                "不会有 NaN，-1e9 只是习惯写法。", (), (0, 2))),
    *_rows("q_lab2_neg_inf", "en",
           (RIGHT, "Usually there is no difference: every blocked position exponentiates to 0. The trouble starts when a "
                   "row has all of its positions blocked: that row's maximum is itself -inf, so the subtract-the-max step "
                   "becomes minus infinity minus minus infinity, which is NaN, and the whole row is ruined. With -1e9 it "
                   "is just a huge negative number: a fully blocked row still comes out as ordinary finite numbers "
                   "(mostly an even split) and no NaN.", (0, 1, 2), ()),
           (RIGHT, "If a row still has at least one position it may look at, both versions produce identical weights. "
                   "But padding combined with the causal mask can leave some row with no position at all, and then the "
                   "stable softmax has to compute (-inf) − (-inf), which is undefined: NaN, and the NaN spreads through "
                   "everything after it. -1e9 is an ordinary finite value, so such a row just gets a set of finite "
                   "weights.", (0, 1, 2), ()),
           (RIGHT, "A row that is masked everywhere turns into NaN: its max is -inf, and x - max contains -inf minus "
                   "-inf. Unless a whole row is masked, -inf and -1e9 behave the same. That is why -1e9 is safer: the "
                   "worst case is a row of equal weights, not NaN.", (0, 1, 2), ()),
           ("negation", "No NaN shows up: exp(-inf) equals 0, the denominator just loses a few terms, and even if a whole "
                        "row is masked you only get a row of zeros, so -inf and -1e9 make no difference.", (), (0,)),
           ("inverted", "It is -1e9 that tends to produce NaN, because its exponential underflows; -inf is exact, "
                        "exp(-inf) is exactly 0, so -inf is the safer choice.", (), (0, 2)),
           ("near_miss", "As long as every row still has an unblocked position the two give the same result, because "
                         "exp(-inf) = 0. So switching the causal mask to -inf is completely fine and NaN never appears, "
                         "whatever the mask.", (1,), (0,)),
           ("wrong_conclusion", "When a whole row is masked, softmax computes -inf - (-inf), but numpy treats that as 0, "
                                "so the result is still a uniform row, there is no NaN, and -1e9 is just a habit.",
            (), (0, 2))),

    # ---- 实验题 3 / Lab question 3: points 0 hundreds–thousands of times, 1 interpreter per multiply-add,
    #      2 compiled BLAS, 3 ratio grows with seq_len (fixed cost spread), levels off
    *_rows("q_lab3_matmul_speed", "zh",
           (RIGHT, "在我的机器上用 @ 比三层循环快了几百倍，seq_len 取 64 时接近五千倍。循环里每做一次乘法和加法，Python 都要解释"
                   "执行一遍；numpy 的 @ 调用的是用 C/Fortran 写好并优化过的线性代数库，能用向量指令一次算好几个数。seq_len 小的"
                   "时候，调用 numpy 本身的那点开销占比较大，所以倍数小；序列变长后这部分开销可以忽略，倍数变大，但两边的运算次数"
                   "增长得一样快，所以倍数最后会稳定下来。", (0, 1, 2, 3), ()),
           (RIGHT, "大概快两三个数量级。纯 Python 循环的每一步都有解释的开销，而矩阵乘法是一次调用交给优化过的库，底层是连续内存上"
                   "的向量化计算。seq_len 越大，倍数越高，因为每次调用的固定成本被分摊了；不过它不会无限增大。", (0, 1, 2, 3), ()),
           (RIGHT, "快很多，seq_len=8 时一两百倍，seq_len=64 时几千倍。差别在于谁来执行乘加：循环版交给 Python 解释器一次一个地做，"
                   "@ 交给编译过的 BLAS。倍数随 seq_len 上升，因为 BLAS 的启动成本是固定的，计算量越大越划算。", (0, 1, 2, 3), ()),
           ("near_miss", "循环里每次乘加都要经过 Python 解释器，所以慢；但 @ 也只是帮你写好的循环，快不了多少，大概两倍，和 seq_len "
                         "没关系。", (1,), (0, 2, 3)),
           ("inverted", "seq_len 越大，倍数越小：矩阵越大，BLAS 越难放进缓存，反而不如循环，长序列时两者差不多。", (), (0, 3)),
           ("negation", "矩阵乘法并没有快多少，只是代码短；numpy 底层也不是编译好的，它同样逐个元素解释执行。", (), (0, 2)),
           ("wrong_conclusion", "矩阵乘法交给了编译好的 BLAS，用了 SIMD，所以快了几千倍；而且倍数会随 seq_len 的平方一直增长下去，"
                                "序列越长优势越大，没有上限。", (0, 2), (3,))),
    *_rows("q_lab3_matmul_speed", "en",
           (RIGHT, "On my machine @ beat the triple loop by a few hundred times, and by close to five thousand at "
                   "seq_len = 64. In the loop, Python has to interpret every single multiplication and addition; "
                   "numpy's @ calls a linear-algebra library written and tuned in C/Fortran, which works on several "
                   "numbers per vector instruction. At small seq_len the overhead of calling numpy at all is a big "
                   "share, so the ratio is small; as the sequence gets longer that overhead stops mattering and the "
                   "ratio rises, but both sides' operation counts grow equally fast, so it eventually settles.",
            (0, 1, 2, 3), ()),
           (RIGHT, "Roughly two to three orders of magnitude. Each step of a pure Python loop pays for interpretation, "
                   "while the matrix product is one call into an optimised library doing vectorised arithmetic on "
                   "contiguous memory. The larger seq_len, the higher the ratio, because the fixed cost of each call is "
                   "amortised; it does not grow forever, though.", (0, 1, 2, 3), ()),
           (RIGHT, "Much faster: one or two hundred times at seq_len = 8, several thousand at seq_len = 64. The "
                   "difference is who performs the multiply-adds: the loop version hands them to the Python "
                   "interpreter one at a time, @ hands them to compiled BLAS. The ratio rises with seq_len because "
                   "BLAS has a fixed start-up cost that pays off better the more work there is.", (0, 1, 2, 3), ()),
           ("near_miss", "Every multiply-add in the loops goes through the Python interpreter, which is why they are "
                         "slow; but @ is also just a loop someone wrote for you, so it is hardly faster, about twice, "
                         "and seq_len has nothing to do with it.", (1,), (0, 2, 3)),
           ("inverted", "The bigger seq_len, the smaller the ratio: large matrices no longer fit in cache for BLAS, so "
                        "it falls behind the loops, and for long sequences the two are about equal.", (), (0, 3)),
           ("negation", "Matrix multiplication is not much faster, the code is just shorter; numpy is not compiled "
                        "underneath either, it interprets element by element too.", (), (0, 2)),
           ("wrong_conclusion", "Matrix multiplication goes to compiled BLAS with SIMD, so it is thousands of times "
                                "faster; and the ratio keeps growing with the square of seq_len forever, so the longer "
                                "the sequence the bigger the advantage, without limit.", (0, 2), (3,))),

    # ---- 实验题 4 / Lab question 4: points 0 parameters unchanged (16384), 1 several heads attend to several
    #      things at once, 2 the price: smaller heads, coarser matching
    *_rows("q_lab4_num_params", "zh",
           (RIGHT, "参数个数一样多，还是 16384 个：每个投影矩阵的形状只由 hidden_dim 决定，头数只是把 64 列分成几份。表达能力不一样："
                   "只有一个头时每个词只能算出一种注意力分布；4 个头可以分别盯着不同的东西，比如一个看前一个词、一个看句子的主语。"
                   "缺点是每个头只有 16 维，单独一个头区分能力差一些。", (0, 1, 2), ()),
           (RIGHT, "改成 1 个头不会增减任何参数，W_q、W_k、W_v、W_o 的大小都没变。但模型能表达的东西少了：多头相当于并行地在几个"
                   "低维空间里各算一套注意力，能同时捕捉多种关系，单头只能给出一种。", (0, 1), ()),
           (RIGHT, "16384 这个数和 num_heads 无关，所以参数不变。1 个头时注意力只有一张图；4 个头有四张，可以各自关注不同位置，"
                   "再由输出投影合起来。代价是每个头的维度从 64 降到 16。", (0, 1, 2), ()),
           ("inverted", "1 个头时参数变少了，只有原来的四分之一，因为每个头都要自己的一套 W_q、W_k、W_v；表达能力也跟着变弱。",
            (), (0,)),
           ("negation", "参数量确实不变，但表达能力也不会变，因为多头最后还是拼成 64 维，和一个 64 维的头没有任何区别。", (0,), (1,)),
           ("near_miss", "每个头的维度变小了，匹配更粗糙，所以多头的表达能力比单头差；参数量随头数成倍增加。", (2,), (0, 1)),
           ("wrong_conclusion", "四个投影矩阵都是 64×64，共 16384 个参数。换成一个头以后 head_dim 变成 64，每个头的矩阵变大，"
                                "所以参数量变成 4 倍。", (), (0,))),
    *_rows("q_lab4_num_params", "en",
           (RIGHT, "Exactly as many parameters, still 16384: the shape of each projection matrix depends only on "
                   "hidden_dim, and the number of heads just cuts the 64 columns into pieces. What the model can express "
                   "differs: with one head each word can only compute a single attention pattern; 4 heads can each watch "
                   "something different, say one the previous word and one the subject of the sentence. The downside is "
                   "that each head has only 16 dimensions, so a single head tells things apart less well.", (0, 1, 2), ()),
           (RIGHT, "Going to 1 head neither adds nor removes a single parameter; W_q, W_k, W_v and W_o keep their size. "
                   "But the model can express less: several heads amount to computing attention in parallel in a few "
                   "low-dimensional spaces, catching several relationships at once, and a single head gives just one.",
            (0, 1), ()),
           (RIGHT, "16384 does not depend on num_heads, so the parameters stay put. With 1 head there is a single "
                   "attention map; 4 heads give four, each free to focus on different positions, merged by the output "
                   "projection. The cost is that each head drops from 64 to 16 dimensions.", (0, 1, 2), ()),
           ("inverted", "With 1 head there are fewer parameters, only a quarter, because every head needs its own W_q, "
                        "W_k and W_v; what the model can express goes down with them.", (), (0,)),
           ("negation", "The number of parameters does stay the same, but what the model can express does not change "
                        "either, because the heads are concatenated back to 64 dimensions, no different from one "
                        "64-dimensional head.", (0,), (1,)),
           ("near_miss", "Each head has fewer dimensions and coarser matching, so several heads express less than one; "
                         "the parameter count multiplies with the number of heads.", (2,), (0, 1)),
           ("wrong_conclusion", "The four projection matrices are 64×64, 16384 parameters. With one head, head_dim becomes "
                                "64, each head's matrices get bigger, so the parameters become 4 times as many.",
            (), (0,))),

    # ---- 思考题 1 / Reflection question 1: points 0 each product: mean 0, variance 1, 1 the sum's variance ≈ head_dim,
    #      2 exponential → top entry → 1, 3 scaling brings the variance back to 1
    *_rows("q_think1_scale", "zh",
           (RIGHT, "点积把 head_dim 对分量的乘积加在一起，每个乘积是两个独立的单位方差分量相乘，平均为 0、方差为 1，"
                   "加得越多总的波动越大：方差和 head_dim 成正比。"
                   "分数的差距一大，经过 exp 以后大的那个会压倒其他所有项，权重几乎都集中到它身上。除以 sqrt(head_dim) 正好把波动"
                   "缩回到 1 的量级，不管维度多大，分布的尖锐程度都差不多。", (0, 1, 2, 3), ()),
           (RIGHT, "维度越高，点积的数值范围越宽（标准差按 √head_dim 增长）。softmax 对差值取指数，差值大时输出就接近 one-hot。"
                   "缩放让分数的尺度不再依赖维度。", (1, 2, 3), ()),
           (RIGHT, "因为 q·k 是很多项相加，每一项 q_i·k_i 平均是 0、方差是 1，项数越多结果越分散；分数一分散，softmax 就把概率"
                   "几乎全部给最大的那个，其余接近 0。", (0, 1, 2), ()),
           ("negation", "点积的方差和 head_dim 无关，始终在 1 左右；变得极端是因为 softmax 本身就会把最大值变成 1。", (), (1,)),
           ("inverted", "head_dim 越大，点积越接近 0，因为正负项互相抵消，所以不缩放时分数更集中、权重更平均；缩放是为了让权重更尖锐。",
            (), (1, 2, 3)),
           ("wrong_conclusion", "点积的方差约等于 head_dim，所以不缩放时分数差距更大；但 softmax 会做归一化，把差距抵消掉，权重"
                                "并不会变得极端，缩放只是为了数值上好看。", (1,), (2, 3)),
           ("near_miss", "缩放以后方差回到 1 左右，温度不随维度变；不缩放时是因为指数函数会下溢，所有权重都变成 0，所以显得极端。",
            (3,), (2,))),
    *_rows("q_think1_scale", "en",
           (RIGHT, "A dot product adds up head_dim products of components, each the product of two independent "
                   "unit-variance numbers, so each has mean 0 and variance 1, and the more you add the bigger the total "
                   "wobble: the variance is proportional to head_dim. Once the gaps "
                   "between scores are big, exp lets the largest one overwhelm all the others and nearly all the weight "
                   "lands on it. Dividing by sqrt(head_dim) shrinks the wobble back to the order of 1, so the sharpness "
                   "of the distribution is about the same whatever the dimension.", (0, 1, 2, 3), ()),
           (RIGHT, "The higher the dimension, the wider the range of the dot products (their standard deviation grows "
                   "like √head_dim). softmax exponentiates the differences, and with big differences the output is "
                   "nearly one-hot. Scaling makes the size of the scores independent of the dimension.", (1, 2, 3), ()),
           (RIGHT, "Because q·k is a sum of many terms, each q_i·k_i averaging 0 with variance 1, and the more terms "
                   "the more spread out the result; once the scores are spread out, softmax gives nearly all the "
                   "probability to the largest one and the rest get close to 0.", (0, 1, 2), ()),
           ("negation", "The variance of the dot product has nothing to do with head_dim, it always stays around 1; the "
                        "weights become extreme because softmax by itself turns the largest value into 1.", (), (1,)),
           ("inverted", "The larger head_dim, the closer the dot products get to 0, since positive and negative terms "
                        "cancel, so unscaled scores are more bunched and the weights more even; the scaling is there to "
                        "make the weights sharper.", (), (1, 2, 3)),
           ("wrong_conclusion", "The variance of the dot product is about head_dim, so without scaling the scores are "
                                "further apart; but softmax normalises and cancels the gaps out, the weights do not "
                                "become extreme, and the scaling is only there to make the numbers look nice.",
            (1,), (2, 3)),
           ("near_miss", "After scaling the variance is back to about 1 and the temperature does not depend on the "
                         "dimension; unscaled, the exponential underflows and every weight becomes 0, which is why "
                         "it looks extreme.", (3,), (2,))),

    # ---- 思考题 2 / Reflection question 2: points 0 softmax normalises the row (future positions took a share),
    #      1 zeroing alone: rows sum < 1, 2 renormalising = masking first; -1e9 first is one step
    *_rows("q_think2_mask_order", "zh",
           (RIGHT, "softmax 的分母是整行所有位置的指数和，如果先算 softmax，未来的位置也被算进了分母，占掉了一部分概率。之后再把"
                   "它们设成 0，剩下的权重加起来就不到 1 了，每个都偏低。如果清零后再把每行除以剩余的和，分母里多出来的部分就消掉了，"
                   "得到的权重和先加掩码时一模一样；只是多算了一遍，先加掩码一步就能得到结果。", (0, 1, 2), ()),
           (RIGHT, "先 softmax 的话，被屏蔽的位置已经分到了概率，清零之后这一行总和小于 1。重新归一化可以补救，结果与正确做法等价，"
                   "但多了一次除法。", (0, 1, 2), ()),
           (RIGHT, "因为归一化是在整行上做的，未来位置会稀释当前位置能拿到的权重；直接清零会让一行的总和变小。再按行重新归一化以后"
                   "两种做法的结果是相同的。", (0, 1, 2), ()),
           ("negation", "先 softmax 再清零和先加掩码没有区别，因为未来位置的概率本来就很小，清零以后每行的和还是 1，不需要重新归一化。",
            (), (0, 1)),
           ("inverted", "清零后再重新归一化会让每一行的和大于 1，所以结果和先加掩码不一样，必须先加掩码。", (), (1, 2)),
           ("near_miss", "只清零不重新归一化的话，每行的和会小于 1；但如果重新归一化，结果会和先加掩码不同，因为未来位置已经影响了"
                         "其他位置的指数。", (1,), (2,)),
           ("wrong_conclusion", "softmax 按行归一化，先 softmax 时未来位置会分走一部分概率。不过清零以后这部分概率会自动回到其他"
                                "位置上，所以每行的和仍然是 1，两种顺序结果一样。", (0,), (1,))),
    *_rows("q_think2_mask_order", "en",
           (RIGHT, "softmax divides by the sum of the exponentials over every position in the row, so if softmax comes "
                   "first, the future positions are part of that denominator and take up some of the probability. "
                   "Setting them to 0 afterwards leaves weights that add up to less than 1, each of them too low. If "
                   "each row is then divided by what remains, the extra part of the denominator drops out and the "
                   "weights are exactly those of masking first; it is just computed twice, where masking first gets "
                   "there in one go.", (0, 1, 2), ()),
           (RIGHT, "With softmax first the blocked positions have already received probability, and after zeroing "
                   "the row sums to less than 1. Renormalising repairs it and gives the same thing as the proper order, "
                   "but costs one more division.", (0, 1, 2), ()),
           (RIGHT, "Because the normalisation runs over the whole row, the future positions dilute the weight the "
                   "current positions can get; zeroing them directly makes the row's total smaller. Renormalise each "
                   "row afterwards and the two ways give the same result.", (0, 1, 2), ()),
           ("negation", "Softmax then zeroing is no different from masking first, since the future positions have tiny "
                        "probabilities anyway; after zeroing each row still sums to 1 and there is no need to "
                        "renormalise.", (), (0, 1)),
           ("inverted", "Renormalising after zeroing makes every row sum to more than 1, so the result is not the same "
                        "as masking first, and the mask has to go first.", (), (1, 2)),
           ("near_miss", "Zeroing without renormalising leaves each row summing to less than 1; but renormalising gives "
                         "a different result from masking first, because the future positions already changed the "
                         "other exponentials.", (1,), (2,)),
           ("wrong_conclusion", "softmax normalises row by row, and with softmax first the future positions take a share "
                                "of the probability. But after zeroing that share flows back to the other positions by "
                                "itself, so every row still sums to 1 and both orders give the same result.",
            (0,), (1,))),

    # ---- 思考题 3 / Reflection question 3: points 0 invariance to a constant, 1 largest exp is 1, no overflow,
    #      2 attention's scores are large / -1e9 too
    *_rows("q_think3_max_trick", "zh",
           (RIGHT, "两者都利用了同一个性质：整行同时减去一个数，softmax 的输出不变，因为分子和分母会乘上同一个因子。减去的正好是"
                   "最大值时，最大的指数项就是 1，其他的都不超过 1，不可能溢出，分母也至少是 1。attention 的分数没有缩放或维度大时"
                   "可能很大，还会有 -1e9，所以这里同样要这样做。", (0, 1, 2), ()),
           (RIGHT, "本质是 softmax 的平移不变性：给一行的每个输入都减去同一个值，结果完全不变。选最大值来减，保证最大的指数是 "
                   "exp(0)，计算不会变成 inf。", (0, 1), ()),
           (RIGHT, "都是为了数值稳定：softmax 只看分数之间的差，整体移动不影响结果，所以可以先把最大值减掉，让所有指数都落在 0 到 1 "
                   "之间，既不上溢也不会出现 0 除以 0。", (0, 1), ()),
           ("negation", "减去最大值会改变 softmax 的结果，只是改变得很小，可以忽略；它的作用是让计算更快。", (), (0,)),
           ("inverted", "减去最大值之后所有的指数都大于 1，这样就不会下溢成 0；attention 的分数都很小，其实不需要这个技巧。",
            (), (1, 2)),
           ("wrong_conclusion", "softmax 对整行加减同一个常数不变，所以减最大值不影响结果；但是在 attention 里有 -1e9，减去最大值"
                                "反而会让它溢出，所以 attention 不该用这个技巧。", (0,), (2,)),
           ("near_miss", "attention 的分数可能很大，也可能含有 -1e9，所以要减最大值；它的原理是把分数压缩到 0 到 1 之间，和第 1 章"
                         "的做法不一样。", (2,), (0,))),
    *_rows("q_think3_max_trick", "en",
           (RIGHT, "Both rely on the same property: take one number away from a whole row and softmax's output stays "
                   "put, since numerator and denominator pick up the same factor. When that number is the maximum, the "
                   "biggest exponential is 1 and the others are at most 1, so nothing can blow up and the denominator "
                   "is at least 1. Attention scores can be large without scaling or with a large dimension, and there "
                   "is -1e9 too, so it is needed here just the same.", (0, 1, 2), ()),
           (RIGHT, "At heart it is the shift invariance of softmax: subtract the same value from every input of a row and "
                   "the result is exactly the same. Subtracting the maximum guarantees the biggest exponential is "
                   "exp(0), so the computation never turns into inf.", (0, 1), ()),
           (RIGHT, "Both are about numerical stability: softmax only looks at the differences between the scores, so "
                   "moving them all together does not matter, and you can take the maximum away first so that every "
                   "exponential lands between 0 and 1, with no overflow and no 0 divided by 0.", (0, 1), ()),
           ("negation", "Subtracting the maximum does change the softmax result, only by a tiny amount you can ignore; "
                        "its purpose is to make the computation faster.", (), (0,)),
           ("inverted", "After subtracting the maximum every exponential is above 1, so nothing underflows to 0; "
                        "attention scores are all small, so attention does not really need the trick.", (), (1, 2)),
           ("wrong_conclusion", "softmax does not change when the same constant is added to or taken from a whole row, so "
                                "subtracting the maximum leaves the result alone; but attention has -1e9, and "
                                "subtracting the maximum would make that overflow, so attention should not use the "
                                "trick.", (0,), (2,)),
           ("near_miss", "Attention scores can be very large or contain -1e9, which is why the maximum is subtracted; "
                         "the idea is to squash the scores into 0 to 1, which is a different thing from chapter 1.",
            (2,), (0,))),

    # ---- 思考题 4 / Reflection question 4: points 0 each step checked on its own, a mistake found at once,
    #      1 multi-head adds only projections, splitting and joining, 2 another well-argued reason
    *_rows("q_think4_split", "zh",
           (RIGHT, "每一段都能单独拿来测：分数算得对不对、掩码后上三角是不是被挡住、每行加起来是不是 1。哪里出错，一看是哪一段没"
                   "通过就知道了。多头只是在外面多套了线性投影和把头拆开再拼回去，核心的数学还是这三步。", (0, 1), ()),
           (RIGHT, "小步骤便于逐个检查，出了错也容易找到是哪个函数的问题。完整的多头前向里形状变换很多，错误会混在一起，而多出来的"
                   "部分只是投影和重排，并没有新的原理。", (0, 1), ()),
           (RIGHT, "把三段分开，就可以像 verify 一样一条一条地断言，错在哪一步一目了然；初学的时候一次只碰一个新概念，"
                   "心里更有底。", (0, 2), ()),
           ("negation", "拆开并不是为了好检查，三段合在一起也一样能看出错在哪；这样做只是因为 C 语言里写不了多头。", (), (0,)),
           ("inverted", "因为多头 attention 用到了新的数学，比如投影矩阵的梯度，初学者还学不会，所以只写单头。", (), (1,)),
           ("wrong_conclusion", "三段各有明确的输入输出，可以单独验证；但出错时还是要把整个程序从头查一遍，拆分主要是为了让程序"
                                "跑得更快。", (), (0,)),
           ("near_miss", "多头只是在单头外面加了投影、切分和拼接；但是这三段不能单独测试，必须连起来才能验证。", (1,), (0,))),
    *_rows("q_think4_split", "en",
           (RIGHT, "Every step can be tested by itself: are the scores right, is the upper triangle blocked after the "
                   "mask, does each row add up to 1. When something breaks, the step that fails tells you where. "
                   "Multi-head only wraps linear projections around it and cuts the heads apart and glues them back; "
                   "the core maths is still these three steps.", (0, 1), ()),
           (RIGHT, "Small steps are easy to check one at a time, and when there is a bug it is easy to find which "
                   "function has it. The full multi-head forward has lots of reshaping where mistakes get tangled "
                   "together, and what it adds is only projections and rearranging, no new principle.", (0, 1), ()),
           (RIGHT, "Splitting the three steps lets you assert them one by one like verify does, and it is obvious at "
                   "which step things went wrong; a beginner meets one new idea at a time, which builds confidence.",
            (0, 2), ()),
           ("negation", "The split is not there to make checking easier, you can see what is wrong just as well with "
                        "the three steps together; it is only because multi-head cannot be written in C.", (), (0,)),
           ("inverted", "Because multi-head attention needs new mathematics, such as the gradients of the projection "
                        "matrices, which beginners cannot learn yet, so only one head is written.", (), (1,)),
           ("wrong_conclusion", "Each of the three steps has a clear input and output and can be checked on its own; but "
                                "when something is wrong you still have to go through the whole program from the top, "
                                "and the split is mostly there to make the program run faster.", (), (0,)),
           ("near_miss", "Multi-head only adds projections, splitting and joining around one head; but the three steps "
                         "cannot be tested separately, they have to be run together to be checked.", (1,), (0,))),
]


# ---- a class made of the table's answers (benchmarks/bench_marking.py, tests/unit/test_marking_table.py) ----

FILLERS = {"zh": ["", "", "", "我认为", "答：", "简单来说，", "从实验看，"],
           "en": ["", "", "", "I think ", "Answer: ", "In short, ", "From the experiment, "]}
ASIDES = {"zh": ["", "", "", "我在上面的实验里也看到了这一点。", "这一点我不太确定。", "课上讲过类似的例子。"],
          "en": ["", "", "", " I saw this in the experiment above too.", " I am not completely sure about this.",
                 " We saw a similar example in class."]}
STUB = {"zh": "在这里写你的回答。", "en": "Write your answer here."}


@dataclass
class ClassOfAnswers:
    question: str
    lang: str
    texts: dict                               # {student: answer}
    truth: dict                               # {student: tuple of bools, one per rubric point}
    rows: dict                                # {student: indices in the question's rows it was made of}
    blank: set                                # students who left the release's stub


def rows_of(question: str, lang: str) -> list:
    return [row for row in TABLE if row.question == question and row.lang == lang]


def combined(rows, rubric) -> tuple:
    """The truth of an answer made of ``rows`` one after the other: their points, less those any contradicts, under
    the rubric's rule for contradictions."""
    ticks = {i for row in rows for i in row.ticks} - {i for row in rows for i in row.spoils}
    spoiled = any(row.spoils for row in rows)
    return contradiction_cap(rubric, tuple(i in ticks for i in range(len(rubric.points))), spoiled)


def reworded(rng, text: str, lang: str) -> str:
    """``text`` as another student hands it in: a filler in front, an aside after, spacing and widths changed."""
    text = rng.choice(FILLERS[lang]) + text + rng.choice(ASIDES[lang])
    if rng.random() < 0.3:
        text = text.replace("，", ",").replace("。", ".") if lang == "zh" else text.replace(", ", " , ")
    if rng.random() < 0.3:
        text = "  " + text.rstrip("。.") + "\n"
    return text


def make_class(question: str, lang: str, rubric, n: int = 300, seed: int = 0, leave_out=()) -> ClassOfAnswers:
    """``n`` students' answers made of the table's rows (none of ``leave_out``, indices in :func:`rows_of`): a tenth
    blank, most one row as another student words it, a third two rows together (their truth combined by the rubric's
    rule for contradictions)."""
    import random
    rng = random.Random(f"{question}-{lang}-{seed}")
    rows = [i for i in range(len(rows_of(question, lang))) if i not in set(leave_out)]
    table = rows_of(question, lang)
    made = ClassOfAnswers(question, lang, {}, {}, {}, set())
    for k in range(n):
        student = f"s{k:03d}"
        if rng.random() < 0.1:
            made.texts[student], made.truth[student], made.rows[student] = STUB[lang], (False,) * len(rubric.points), ()
            made.blank.add(student)
            continue
        picked = tuple(rng.sample(rows, 2 if rng.random() < 0.33 and len(rows) > 1 else 1))
        joiner = "" if lang == "zh" else " "
        made.texts[student] = reworded(rng, joiner.join(table[i].text for i in picked), lang)
        made.truth[student], made.rows[student] = combined([table[i] for i in picked], rubric), picked
    return made
