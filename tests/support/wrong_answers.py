"""Wrong answers to the chapter's 8 written questions, in both languages: what the rubric's hints must not reward.

Each :class:`WrongAnswer` is an answer a student could well write, with the misconception that makes it wrong
(``why``). Many use the words a right answer uses too (方差, 指数, 整行, 均匀, 分母, 投影, 拼接; variance,
exponential, whole row, uniform, denominator, projection, concatenate): a hint made of one such word suggests
marks for them. :data:`NEAR_MISSES` get one minor rubric point right, worth no more than :data:`MOST`, and the
question wrong: their suggestion may find that point, and no other. tests/unit/test_rubric_hints.py asks the marking page's suggestion
(:func:`coursekit.marking.rubric.suggest`) for each: it may offer at most :data:`MOST` of the question's points.
A new wrong answer is one new row.
"""
from dataclasses import dataclass

MOST = 0.25  # the largest share of a question's points a wrong answer may be offered


@dataclass(frozen=True)
class WrongAnswer:
    question: str  # the answer cell's grade_id
    lang: str
    text: str
    why: str       # the misconception, in a few words


def _rows(question: str, lang: str, *pairs) -> list:
    return [WrongAnswer(question, lang, text, why) for text, why in pairs]


WRONG = [
    *_rows("q_lab1_no_scale", "zh",
           ("不缩放时分数的方差变小，经过指数运算以后所有位置的权重都差不多，分布接近均匀，所以不会接近 one-hot。",
            "the variance grows without the scale, it does not shrink"),
           ("scale = 1.0 乘上去数值不变，所以 softmax 的结果和缩放后完全一样，两种情况下的权重相同。",
            "the scores change by a factor of 8, so the weights change"),
           ("不会接近 one-hot：softmax 的输出总是在 0 和 1 之间，每行加起来是 1，所以每个位置大约分到 1/6。",
            "summing to 1 says nothing about how peaked a row is")),
    *_rows("q_lab1_no_scale", "en",
           ("Without scaling the variance of the scores gets smaller, so after the exponential every position gets "
            "about the same weight and the distribution is close to uniform, not one-hot.",
            "the variance grows without the scale, it does not shrink"),
           ("Multiplying by scale = 1.0 changes nothing, so softmax gives exactly the same weights as with scaling.",
            "the scores change by a factor of 8, so the weights change"),
           ("They cannot be close to one-hot: softmax outputs are always between 0 and 1 and each row sums to 1, so "
            "each of the 6 positions gets about 1/6.",
            "summing to 1 says nothing about how peaked a row is")),
    *_rows("q_lab2_neg_inf", "zh",
           ("不会出现 NaN。exp(-inf) 就是 0，整行被屏蔽也只是每个位置都是 0，除以一个很小的分母而已；-1e9 只是算得快一些。",
            "a fully masked row computes -inf - (-inf) = NaN"),
           ("会出现 NaN，因为 exp(-inf) 会溢出成无穷大，整行的和变成 inf；-1e9 的指数是有限的，所以得到均匀的权重。",
            "exp(-inf) is 0, not inf; the NaN comes from -inf - (-inf)"),
           ("只要用了 -inf 就一定会出现 NaN，因为 inf 不能参与任何运算，所以任何一行的结果都会变成 NaN。",
            "rows with an unblocked position are fine with -inf")),
    *_rows("q_lab2_neg_inf", "en",
           ("No NaN appears. exp(-inf) is just 0, and a whole row that is masked only means every position is 0 and "
            "the denominator is small; -1e9 is just faster to compute.",
            "a fully masked row computes -inf - (-inf) = NaN"),
           ("NaN appears because exp(-inf) overflows to infinity and the whole row sums to inf; the exponential of "
            "-1e9 is finite, so the weights come out uniform.",
            "exp(-inf) is 0, not inf; the NaN comes from -inf - (-inf)"),
           ("Using -inf always gives NaN, in every row, because infinity cannot take part in any arithmetic.",
            "rows with an unblocked position are fine with -inf")),
    *_rows("q_lab3_matmul_speed", "zh",
           ("矩阵乘法大约快 2 倍，因为它少写了几行代码；倍数和 seq_len 无关，一直是常数。",
            "two to four orders of magnitude, and the ratio changes with seq_len"),
           ("矩阵乘法快是因为 numpy 会把算过的结果放进缓存，下次直接读；倍数按 seq_len 的平方增长，越长越快。",
            "no result is reused; the ratio levels off instead of growing as seq_len²"),
           ("两者一样快：Python 解释器会把三层循环自动编译成矩阵乘法，所以倍数接近 1。",
            "the interpreter runs every multiply-add itself")),
    *_rows("q_lab3_matmul_speed", "en",
           ("Matrix multiplication is about 2 times faster because it needs fewer lines of code; the ratio does not "
            "depend on seq_len.",
            "two to four orders of magnitude, and the ratio changes with seq_len"),
           ("It is faster because numpy caches results it has computed and reads them back; the ratio grows with the "
            "square of seq_len, so longer is always better.",
            "no result is reused; the ratio levels off instead of growing as seq_len²"),
           ("Both are equally fast: the Python interpreter turns the three loops into a matrix multiplication, so the "
            "ratio is about 1.",
            "the interpreter runs every multiply-add itself")),
    *_rows("q_lab4_num_params", "zh",
           ("参数量变成原来的 1/4，因为只有一个头，投影矩阵只需要 16 列；表达能力不变。",
            "the projections stay [hidden_dim, hidden_dim]; one head can express less"),
           ("参数量变成 4 倍：每个头都有自己的投影矩阵，拼接以后更大。表达能力和头数无关。",
            "the heads share the columns of the same four matrices"),
           ("一个头的子空间更大，所以一个头的表达能力比 4 个头更强，参数量也更多。",
            "the count does not change, and several heads can attend to several things at once")),
    *_rows("q_lab4_num_params", "en",
           ("The number of parameters drops to a quarter, because a single head only needs 16 columns per "
            "projection; what the model can express stays the same.",
            "the projections stay [hidden_dim, hidden_dim]; one head can express less"),
           ("It grows 4 times: each head has its own projection matrices, and concatenating them makes them "
            "bigger. What the model can express does not depend on the number of heads.",
            "the heads share the columns of the same four matrices"),
           ("One head has a bigger subspace, so it can express more than 4 heads, and it has more parameters too.",
            "the count does not change, and several heads can attend to several things at once")),
    *_rows("q_think1_scale", "zh",
           ("因为缩放会让方差变大，去掉缩放以后方差变小，指数函数就把差距拉平了。",
            "the scale shrinks the variance; without it the variance is about head_dim"),
           ("softmax 的指数会让所有权重都接近 0，所以不缩放时权重容易变得极端。",
            "the largest weight goes to 1, not all of them to 0"),
           ("因为 head_dim 越大，向量越稀疏，点积大多是 0，权重就变得极端。",
            "the vectors are dense; the dot product's spread grows with head_dim")),
    *_rows("q_think1_scale", "en",
           ("Because the scaling makes the variance larger; without it the variance is smaller and the exponential "
            "evens the gaps out.",
            "the scale shrinks the variance; without it the variance is about head_dim"),
           ("The exponential in softmax pushes every weight towards 0, which is why the weights become extreme.",
            "the largest weight goes to 1, not all of them to 0"),
           ("Because a larger head_dim makes the vectors sparse, so most dot products are 0 and the weights become "
            "extreme.",
            "the vectors are dense; the dot product's spread grows with head_dim")),
    *_rows("q_think2_mask_order", "zh",
           ("两种顺序的结果完全相同，因为未来位置最后都是 0，所以放在前面还是后面都可以，只是习惯。",
            "zeroing alone leaves rows that sum to less than 1"),
           ("先 softmax 的话未来位置不会分走概率，因为它们的分数比较小；清零后再重新归一化会让每行的和大于 1。",
            "softmax gives every position a share; renormalising makes rows sum to exactly 1"),
           ("掩码必须放在 softmax 之前，是因为 softmax 之后的数组是只读的，不能再修改。",
            "nothing is read-only; the reason is the normalisation")),
    *_rows("q_think2_mask_order", "en",
           ("Both orders give exactly the same result, since the future positions end up as 0 either way; where the "
            "mask goes is only a habit.",
            "zeroing alone leaves rows that sum to less than 1"),
           ("With softmax first the future positions do not take any probability because their scores are small; "
            "renormalising after zeroing makes every row sum to more than 1.",
            "softmax gives every position a share; renormalising makes rows sum to exactly 1"),
           ("The mask has to go before softmax because the array softmax returns is read-only and cannot be changed "
            "any more.",
            "nothing is read-only; the reason is the normalisation")),
    *_rows("q_think3_max_trick", "zh",
           ("减去最大值是为了让分母变小、计算更快；它会稍微改变结果，但误差可以忽略。",
            "the result does not change at all, and the point is overflow, not speed"),
           ("减去最大值是为了防止下溢：这样所有的指数都大于 1。和第 1 章没有关系，attention 里不需要这个技巧。",
            "afterwards every exponential is at most 1; attention needs it just as much"),
           ("两者的共同点是都用了指数函数，指数函数总是正的，所以概率是正数。",
            "the shared idea is the invariance to a constant shift, which prevents overflow")),
    *_rows("q_think3_max_trick", "en",
           ("Subtracting the maximum makes the denominator smaller so that it computes faster; it changes the result "
            "slightly, but the error is negligible.",
            "the result does not change at all, and the point is overflow, not speed"),
           ("Subtracting the maximum prevents underflow, because then every exponential is above 1. It has nothing "
            "to do with chapter 1, and attention does not need it.",
            "afterwards every exponential is at most 1; attention needs it just as much"),
           ("What they have in common is that both use the exponential, which is always positive, so the "
            "probabilities are positive.",
            "the shared idea is the invariance to a constant shift, which prevents overflow")),
    *_rows("q_think4_split", "zh",
           ("因为完整的多头前向需要新的数学，投影和拼接太难，第一次学不适合。",
            "multi-head attention adds no new mathematics"),
           ("拆成三个小函数以后程序运行得更快，C 编译器可以更好地优化。",
            "the split is for checking and finding mistakes, not for speed"),
           ("这样学生只需要写三行代码，老师改作业更省事。",
            "the point is that each step can be checked on its own")),
    *_rows("q_think4_split", "en",
           ("Because the full multi-head forward pass needs new mathematics: the projections and the concatenation "
            "are too hard for a first course.",
            "multi-head attention adds no new mathematics"),
           ("Three small functions run faster than one big one, because the C compiler can optimise them better.",
            "the split is for checking and finding mistakes, not for speed"),
           ("That way students only write three lines of code and the teacher has less to mark.",
            "the point is that each step can be checked on its own")),
]

# Wrong answers with one minor point right: (question, lang, text, why, the one rubric point (from 0) they get right).
NEAR_MISSES = [
    ("q_lab1_no_scale", "zh", "不缩放时 softmax 会饱和，梯度很小；但权重反而更平均，因为分数的方差变小了。",
     "the scores spread out without the scale, so most rows get close to one-hot", 3),
    ("q_lab1_no_scale", "en", "Without scaling softmax saturates and the gradients are tiny; but the weights get more even, "
     "because the variance of the scores gets smaller.",
     "the scores spread out without the scale, so most rows get close to one-hot", 3),
    ("q_lab2_neg_inf", "zh", "在任何情况下 -inf 和 -1e9 都一样：被屏蔽的位置 exp(-inf) = 0，整行的和仍然是 1，所以不会出现 NaN，"
     "两者可以随便换。", "a fully masked row gives NaN with -inf", 1),
    ("q_lab2_neg_inf", "en", "-inf and -1e9 are always the same: at blocked positions exp(-inf) = 0, the whole row still sums "
     "to 1, so no NaN ever appears and either can be used.", "a fully masked row gives NaN with -inf", 1),
    ("q_lab3_matmul_speed", "zh", "矩阵乘法只快 2 倍左右：循环的每一步都要经过 Python 解释器，可矩阵乘法也是 Python 写的，"
     "倍数和 seq_len 无关。", "numpy's matmul is compiled BLAS: hundreds to thousands of times faster", 1),
    ("q_lab3_matmul_speed", "en", "Matrix multiplication is only about 2 times faster: every step of the loops goes through "
     "the Python interpreter, but matmul is written in Python too, and the ratio does not depend on seq_len.",
     "numpy's matmul is compiled BLAS: hundreds to thousands of times faster", 1),
    ("q_think1_scale", "zh", "缩放把方差拉回 1 左右；不缩放时方差反而变小，所以权重不会变得极端。",
     "without the scale the variance is about head_dim, and the weights do become extreme", 3),
    ("q_think1_scale", "en", "Scaling brings the variance back to about 1; without it the variance is smaller, so the "
     "weights do not become extreme.", "without the scale the variance is about head_dim, and the weights do become extreme", 3),
    ("q_think3_max_trick", "zh", "attention 的分数里有 -1e9，所以要减去最大值让分母变小、算得更快；结果会有一点点误差。",
     "the trick leaves the result unchanged and prevents overflow", 2),
    ("q_think3_max_trick", "en", "Attention scores contain -1e9, so the maximum is subtracted to make the denominator smaller "
     "and faster to compute; the result changes a little.", "the trick leaves the result unchanged and prevents overflow", 2),
]
