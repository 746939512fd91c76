"""tf.nn.rnn_cell and tf.nn.static_rnn against TensorFlow's values.

Each pinned case ran under TF 2.21 (``tf.compat.v1`` with tf_keras' legacy cells) as
``_run`` below does: inputs ``RandomState(1).uniform(-1, 1, (3, 2, 3))`` (3 steps, batch
2, depth 3), every trainable variable loaded with ``RandomState(0).uniform(-0.5, 0.5)``
in creation order, loss ``sum_t reduce_sum(output_t ** 2)``. ``EXPECTED`` is the outputs,
the final state's leaves, then each variable's gradient, flattened in that order.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.nest import flatten

rc = tf.nn.rnn_cell
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "tf_rnn")

# TF 2.21: outputs, final state, gradients (see the module docstring).
EXPECTED = {
    "basic_rnn": [
        0.38441885, -0.1321231, 0.25623274, -0.2039372, 0.1585155, 0.01588615, 0.13916637,
        0.21322522, 0.38866004, -0.14106558, 0.3562539, 0.14069124, 0.38866004, -0.14106558,
        0.3562539, 0.14069124, -0.6575221, 0.23719893, 0.13716957, -0.35398492, -1.7967334,
        0.9409247, 0.34128618, 0.30372667, 0.05204165, -0.12735744, 3.253642, 0.48102146,
    ],
    "basic_lstm": [
        0.0077119432, -0.072055824, -0.06590488, -0.10247988, 0.010422239, -0.13933997, 0.013663343,
        -0.16361672, 0.041454345, -0.11380422, 0.061647017, -0.20749772, 0.11791097, -0.53948677,
        0.14763094, -0.48665506, 0.041454345, -0.11380422, 0.061647017, -0.20749772, -0.0008462406,
        -0.02632086, -0.0022564, 0.02688591, -0.00011206276, -0.0011788141, -0.0021137563, -0.015984628,
        -0.0031096246, -0.026973914, 0.028994985, 0.06900788, 0.00016247144, -0.0032886043, -0.0030837508,
        -0.011544049, -0.002858486, -0.053516008, -0.0040589822, 0.043819617, -0.00043082674, 0.0014603877,
        -0.0062372284, -0.026162645, -0.00014322929, -0.00096512586, -0.00039382966, 0.006172497, 6.181476e-05,
        -0.00055016426, 8.311021e-05, -0.00093975896, -0.0010448403, -0.0063414583, -0.0082700495, 0.026439127,
        1.2454322e-05, -0.0037903124, -0.00103813, -0.015272284, 0.011918526, 0.11725526, 0.052567378,
        -0.3168042, -0.0003145336, 0.03147595, 0.012417996, 0.142801,
    ],
    "basic_lstm_fb_notuple": [
        0.0077119432, -0.072055824, -0.06590488, -0.10247988, 0.009467847, -0.13031092, 0.018936792,
        -0.15299274, 0.039355196, -0.10298757, 0.06254573, -0.18599251, 0.11158083, -0.47883108,
        0.039355196, -0.10298757, 0.14950988, -0.42844406, 0.06254573, -0.18599251, -0.00085080194,
        -0.022796586, 0.00079063606, 0.022332199, -5.3330143e-05, -0.0012172575, -0.0018687914, -0.015295686,
        -0.0032631112, -0.022857701, 0.028101826, 0.060352135, 0.00016085719, -0.0035986383, -0.0031884941,
        -0.011188208, -0.0028795549, -0.04550486, 0.0015861783, 0.035577036, -0.00048330703, 0.0017205649,
        -0.005868541, -0.02444197, -0.00012376663, -0.0007788623, -0.00030777883, 0.005112742, 8.142744e-05,
        -0.0005638292, 9.737863e-05, -0.00070655963, -0.0009781233, -0.005655217, -0.0076443236, 0.02360896,
        6.1696337e-06, -0.003995503, -0.00097030035, -0.012123864, 0.011848656, 0.10306477, 0.044962768,
        -0.2836019, -0.0003171704, 0.034458075, 0.012277223, 0.12315407,
    ],
    "gru": [
        -0.31693068, 0.14260103, -0.054425467, -0.09182427, -0.20838273, 0.025628254, -0.22411099,
        -0.045784764, -0.36609542, 0.15720469, -0.3412081, -0.009162217, -0.36609542, 0.15720469,
        -0.3412081, -0.009162217, 0.007066126, -0.0005980086, 0.0105873, 0.01686533, -0.0009891023,
        -7.46863e-05, -0.075057596, -0.035221413, 0.006067439, -0.00037267013, 0.13638642, 0.07175879,
        0.0043083583, -0.0002227692, 0.012011209, 9.3365554e-05, -0.0010673912, 0.00013497757, 0.011904814,
        0.0014159845, -0.01684957, 0.00052494486, -0.25201952, -0.057987966, 0.4442044, -0.10196365,
        -0.05947505, 0.20567048, 0.824713, -0.18315622, 0.13608144, -0.024995219, -0.0062954323,
        0.011473899, -1.8276085, 0.17272434,
    ],
    "multi": [
        -0.09146885, 0.040457636, -0.09343536, 0.04404007, -0.15577434, 0.07586488, -0.1558914,
        0.0791339, -0.2001341, 0.098005295, -0.19786035, 0.10619302, 0.11791097, -0.53948677,
        0.14763094, -0.48665506, 0.041454345, -0.11380422, 0.061647017, -0.20749772, -0.44829804,
        0.24971017, -0.4481781, 0.26721883, -0.2001341, 0.098005295, -0.19786035, 0.10619302,
        -0.0006932595, -0.00042967754, 0.010907826, 0.00035019364, 6.3236046e-05, -3.8498045e-05, -9.74048e-05,
        -0.00020817824, -0.0009906748, -0.00040398305, 0.0018267599, 0.0012093242, -5.8715752e-05, -4.4893437e-05,
        -0.00072046457, 7.74085e-05, -0.0013611794, -0.0007233272, 0.022561219, 0.0003256048, 0.0001673768,
        8.649222e-07, 2.8342416e-05, -0.00021840891, 7.023983e-05, -1.9443229e-05, 0.0002366999, 0.00012823449,
        -2.4211844e-05, -1.1089972e-05, -8.142674e-06, -1.5309051e-05, 0.00028106937, -0.00014575772, 0.0023914478,
        0.0005823007, -1.7237195e-05, -8.661127e-05, 0.00024396375, -0.00035144883, -0.0008939606, 0.0020303112,
        -0.0421303, -0.0060825916, 0.00019884155, 0.00070791837, -0.0011811232, 0.0025584719, 0.0005295506,
        0.00036194635, -0.001699463, 0.0023433967, 0.0012222135, 0.0003779595, 0.0043057473, 0.001360636,
        -0.018925682, -0.004267554, 0.06873724, -0.032730084, -0.005870784, -0.00168088, -0.023209995,
        -0.0058968575, -0.010174182, -0.0026390695, 0.036561735, -0.019657616, -0.004722822, -0.0013741887,
        -0.017877297, -0.0048647774, 0.004856298, 0.0012692248, -0.017448133, 0.009441223, 0.002280545,
        0.00066814636, 0.008693511, 0.0023831734, 0.14934243, 0.031165466, -0.544601, 0.24438441,
        0.03768627, 0.010584939, 0.15719156, 0.037703246,
    ],
    "lstm_seqlen": [
        0.0077119432, -0.072055824, -0.06590488, -0.10247988, 0.010422239, -0.13933997, 0.013663343,
        -0.16361672, 0, 0, 0.061647017, -0.20749772, 0.022460017, -0.40340647,
        0.14763094, -0.48665506, 0.010422239, -0.13933997, 0.061647017, -0.20749772,
    ],
    "lstm_plain": [
        0.0077119432, -0.072055824, -0.06590488, -0.10247988, 0.010422239, -0.13933997, 0.013663343,
        -0.16361672, 0.041454345, -0.11380422, 0.061647017, -0.20749772, 0.11791097, -0.53948677,
        0.14763094, -0.48665506, 0.041454345, -0.11380422, 0.061647017, -0.20749772, -0.0008462406,
        -0.02632086, -0.0022564, 0.02688591, -0.00011206276, -0.0011788141, -0.0021137563, -0.015984628,
        -0.0031096246, -0.026973914, 0.028994985, 0.06900788, 0.00016247144, -0.0032886043, -0.0030837508,
        -0.011544049, -0.002858486, -0.053516008, -0.0040589822, 0.043819617, -0.00043082674, 0.0014603877,
        -0.0062372284, -0.026162645, -0.00014322929, -0.00096512586, -0.00039382966, 0.006172497, 6.181476e-05,
        -0.00055016426, 8.311021e-05, -0.00093975896, -0.0010448403, -0.0063414583, -0.0082700495, 0.026439127,
        1.2454322e-05, -0.0037903124, -0.00103813, -0.015272284, 0.011918526, 0.11725526, 0.052567378,
        -0.3168042, -0.0003145336, 0.03147595, 0.012417996, 0.142801,
    ],
    "lstm_peep_proj_clip": [
        -0.02110002, 0.046462674, 0.030364186, 0.029340932, 0.010228911, 0.04417412, 0.03201385,
        0.028183606, -0.01941807, 0.04529037, 0.024019066, 0.03140524, -0.3, -0.3,
        -0.066730574, -0.24411511, -0.14649145, -0.3, -0.01941807, 0.04529037, 0.024019066,
        0.03140524, -0.0008649311, -0.0001976629, -0.00022453818, 0.0018816106, -0.0021634132, -0.0015474061,
        0.00021335908, 0.00013707284, 7.891072e-05, -0.0035820645, -6.47845e-05, 7.364582e-05, -0.0022313488,
        9.4852294e-07, -0.00034347607, 0.009680739, -0.0061249654, 0.008697352, -0.00020331255, 0.00010632771,
        -0.0001489702, 0.00071836903, 0.0002841795, -0.0008681603, -0.0020286115, -0.00026956847, -0.0007275827,
        0.004982886, -0.003353264, -0.0043576756, 0.00035022802, 6.0795508e-05, 0.00021161842, -0.006139786,
        -0.00029298442, -8.817145e-05, 3.956592e-05, -3.6420402e-05, 1.6971051e-05, -0.00041192916, 0.00024129698,
        -0.00010476929, 3.861497e-05, 2.949113e-06, 5.7285733e-06, 6.975799e-05, -1.5854144e-05, 4.805698e-05,
        3.6464604e-05, -4.1619554e-05, 4.3932378e-06, -0.0003845692, 0.00036034823, 0.00011604478, 3.6096328e-05,
        -1.6234175e-05, 2.980731e-06, 0.00033747655, -3.1775788e-05, 4.5034227e-05, 0.004132975, -0.0013800657,
        0.0011417144, -0.023934115, 0.017822713, 0.00016454828, 0.0012476898, -0.00038895203, 0.00015092186,
        0.012737896, -0.00084374554, 0.0024062567, -0.00024996337, 6.863366e-05, -3.7140213e-05, -0.0002537699,
        4.8749236e-05, -0.00010847808, -0.0034298026, 8.9496025e-05, -0.000650918, -0.0054704035, -0.049206875,
        0.005387648, -0.046278294, -0.022619825, -0.030309275,
    ],
    "lstm_notuple": [
        -0.1122008, 0.03846369, -0.010376435, 0.023818599, -0.06977518, 0.038598318, -0.01570159,
        0.06047158, -0.16910799, 0.06271921, -0.026768392, 0.07585155, -0.711335, -0.26977724,
        -0.04715837, -0.16910799, 0.06271921, -0.19989762, -0.12442377, -0.26588005, -0.026768392,
        0.07585155, -0.01001731, -0.007916881, 5.0669303e-05, 0.018145032, 0.030697502, -0.009470003,
        -0.0046797073, -0.0030056643, 0.00068853225, -0.017998125, -0.0051510814, 0.0012795064, 0.010565424,
        0.012031866, -0.0009852295, -0.005188295, -0.007119043, 0.02292972, 0.000981776, 0.00048238214,
        -0.00082578557, 0.019168593, 0.00650862, -0.0013415153, -0.022223324, -0.019018233, -0.0013079243,
        0.025973149, 0.05461061, -0.014585395, -0.0038999533, -0.0026672832, 0.0011148038, -0.031495195,
        -0.01027962, 0.00073334295, -0.0010924336, -0.0010198718, 5.869982e-05, 0.00258726, 0.004957242,
        -0.00090691465, -0.0007357495, -0.00053063093, -2.1820244e-05, -0.0021660062, -0.0007543109, -1.1187171e-05,
        0.00051171926, 0.0007256676, 6.54525e-05, -0.0010879695, -0.003637219, -0.0005194312, 0.0003099425,
        0.00026332, 9.8908364e-05, 0.0010979482, 0.0005296754, 0.00021090746, 0.026587453, 0.02757514,
        0.0040695625, -0.04409261, -0.13087103, -0.016132925, 0.008019079, 0.006196498, 0.0025196744,
        0.03756113, 0.0159545, 0.0056248163, 0.15538079, -0.073369116, 0.1046775, -0.050185286,
        0.02449697, -0.042467054,
    ],
    "residual": [
        -0.42123613, 0.33446586, -1.0552982, -0.5327973, -0.6814406, -0.98277843, -0.90032613,
        -0.36291546, -0.3729431, -0.07391012, -0.15898263, 0.12906043, -1.0265995, 0.6060921,
        -1.0954912, 0.1715624, -0.17725293, -0.14207983, -1.0978695, -0.34292328, -0.25683585,
        -0.37206775, -0.030620286, -0.5036965, -0.43550402, -0.15014279, -0.15026629, -0.16937262,
        -0.01186253, -0.2594595, -0.13869938, 0.05262161, -0.147959, 0.45929676, -0.10624214,
        1.0311613, -0.097300395, 0.013282139, -0.06415813, -0.45455617, 0.064140394, -0.18649094,
        0.06120614, -0.045718756, -0.059311196, 0.08434613, 0.4928183, -0.4786123, 0.00646808,
        -0.00935178, 0.05021008, 0.22062562, -0.08701965, -0.020709217, -0.26122472, 0.12383416,
        -0.19821271, 0.56034327, -0.21385898, 2.0574918, -0.06903319, 0.015322899, -0.08330147,
        -0.60190827, 0.15121081, -0.3349617, -0.039669774, 0.014606598, -0.043849558, 0.11724886,
        -0.04647263, 0.32287645, -0.037581988, 0.006383883, -0.031743266, -0.1711379, 0.022545552,
        -0.053668313, -0.013081881, 0.003161086, -0.016556414, 0.050694235, -0.020851787, 0.09478001,
        -0.013701273, 0.0015083037, -0.007832334, -0.048114, 0.003601827, -0.014719361, -0.014022796,
        0.008259479, -0.013558114, 0.014775169, -0.0018009376, 0.14706782, -0.010719355, 0.0034490665,
        -0.017728372, -0.07594192, 0.01507378, -0.028622106, 0.33002117, -0.12584113, 0.33617663,
        -0.81867206, -0.026592053, -2.6596255, 0.13833152, -0.02513251, 0.12220219, 0.81613433,
        -0.14495975, 0.42201284,
    ],
    "dropout": [
        -0.017758785, 0, -0.19525492, 0, -0.03944941, 0, -0.014969912,
        0, 0.038127586, 0, 0.084825166, 0, 0.06974721, -0.5302367,
        0.12139226, -0.49270585, 0.028595692, -0.10496292, 0.063618876, -0.27416098, -0.015950557,
        -0.0016301962, 0.09143447, 0.0019972268, -0.00024407207, -0.00019523491, -0.018733684, -0.0013673521,
        -0.03665162, -0.002365255, 0.12253646, 0.0036847491, -5.3515047e-05, -0.00022519357, -0.035376944,
        -0.0022587725, -0.037978843, -0.002186012, 0.17240156, 0.00057421066, -0.0005365211, 0.00015856358,
        -0.042278346, 0.0006360024, -0.00089294976, -0.00011454272, -0.0038704027, 0.00066751137, 0.00029654632,
        -6.986721e-05, -0.00023156169, -0.0003290151, -0.0028730934, -0.00014431795, -0.015523965, 0.00068623706,
        0.0004004481, -7.9524696e-05, -0.0022895588, -0.00038582858, 0.05078035, 0.0034054066, -0.080093525,
        -0.008008963, -0.0025806827, 0.0007259499, 0.047328293, 0.0037530772,
    ],
    "dropout_graphseed": [
        0, 0.2924282, 0.22754306, -0.45465946, 0, 0.06666101, -0.17956717,
        -0.33197194, 0, 0.36915398, -0.5197545, -0.28515548, 0, 0.43067962,
        -0.6063802, -0.33268136, -0.0011504558, -0.003824919, -0.16282251, 0.35929513, 0.001387352,
        -0.002969469, 0.06538671, -0.17879374, 0, -0.0018470071, 0, 0.7254727,
        -0.0006941301, 0.0008625511, -0.053260412, 0.044470057, 0.0021328162, -0.0007670981, 0.20035657,
        -0.094289824, -0.0042706146, 0.007391321, -0.36122647, -0.2451539, -0.2634686, -0.70860666,
        0.8286525, 2.2902343, 0, -1.6773276, -0.07086698, -0.10997284, 0.34651917,
        0.4589913, -1.6068758, -1.0108274,
    ],
    "multi_dropout": [
        0.15465885, -0.37957177, 0.13783778, -0.43489796, 0.28097206, -0.48382705, 0.25840107,
        -0.5280585, 0.3820634, -0.49872714, 0.29919767, -0.665586, 0.11791097, -0.53948677,
        0.14763094, -0.48665506, 0.041454345, -0.11380422, 0.061647017, -0.20749772, 0.2991547,
        -0.2711187, 0.29919767, -0.25059053, -0.017974954, -0.17773008, -0.44740394, 0.2002905,
        -0.0031415229, -0.013839631, -0.02995636, -0.13472563, 0.008853686, -0.14232765, 0.3781445,
        0.38692254, 0.00095566205, -0.016059235, 0.025043646, -0.037371915, -0.032127164, -0.3682781,
        -0.73877215, 0.33965898, -0.0026537352, 0.0011011269, -0.04657665, -0.2350525, 0.0004277071,
        -0.005195851, 0.0070316074, 0.03442453, -9.2682385e-06, -0.0029835997, 0.0005074047, -0.004335899,
        -0.0025269892, -0.039357044, -0.0692482, 0.1573701, -0.0006391865, -0.023201777, -0.005936676,
        -0.09476451, 0.03317704, 0.74860334, 0.9850519, -1.9402908, 0.006122503, 0.19351622,
        0.052656505, 0.91831577, 0.10071787, -0.10576297, -1.5100725, 1.5044087, 0.6511326,
        -0.7818884, -0.8053646, 0.80827963, 5.947924, -5.442057,
    ],
    "bidi": [
        0.0077119432, -0.072055824, -0.14138082, 0.55006, -0.20519497, -0.06590488, -0.10247988,
        -0.2603861, 0.513312, 0.024489198, 0.010422239, -0.13933997, -0.13612098, 0.40736994,
        -0.027477577, 0.013663343, -0.16361672, -0.21547745, 0.27029562, 0.017523184, 0.041454345,
        -0.11380422, -0.048492696, 0.27828062, -0.1306772, 0.061647017, -0.20749772, -0.21138792,
        0.2024842, -0.03666339, 0.11791097, -0.53948677, 0.14763094, -0.48665506, 0.041454345,
        -0.11380422, 0.061647017, -0.20749772, -0.14138082, 0.55006, -0.20519497, -0.2603861,
        0.513312, 0.024489198, -0.0008462406, -0.02632086, -0.0022564, 0.02688591, -0.00011206276,
        -0.0011788141, -0.0021137563, -0.015984628, -0.0031096246, -0.026973914, 0.028994985, 0.06900788,
        0.00016247144, -0.0032886043, -0.0030837508, -0.011544049, -0.002858486, -0.053516008, -0.0040589822,
        0.043819617, -0.00043082674, 0.0014603877, -0.0062372284, -0.026162645, -0.00014322929, -0.00096512586,
        -0.00039382966, 0.006172497, 6.181476e-05, -0.00055016426, 8.311021e-05, -0.00093975896, -0.0010448403,
        -0.0063414583, -0.0082700495, 0.026439127, 1.2454322e-05, -0.0037903124, -0.00103813, -0.015272284,
        0.011918526, 0.11725526, 0.052567378, -0.3168042, -0.0003145336, 0.03147595, 0.012417996,
        0.142801, 0.004145966, -0.013595136, 0.0006802424, -0.0010726806, 0.19464971, 0.014766998,
        0.0060596284, -0.0036147374, 0.00036117877, 0.017468814, -0.048355862, -0.048461206, 0.005982048,
        -0.01484449, 0.0001502693, 0.010321787, 0.36442608, 0.068635315, 0.0054150755, -0.004479454,
        9.476938e-05, 0.0034998371, 0.04983244, 0.005834789, -0.007604279, 0.011722079, -0.00035156676,
        -0.007254591, -0.09927521, -0.013231125, 0.0008722225, -0.002822313, 0.00015419188, 0.0015125277,
        0.012903841, -0.0010833543, -0.029191712, 0.038801514, -0.0013138489, -0.07591019, -0.63996303,
        -0.06065921, 0.15512837, -0.6171762, 0.15022753, 0.20171225, -0.030237459, -0.14177138,
        0.28322247, -0.75443554, 0.27203643, 0.09321095, -0.12658797, 0.0060486067, -0.13637461,
        0.22844917, -0.034975532, 0.020029303, -0.0502333, 0.006730102, -1.3464459, 2.4080188,
        -0.26275268,
    ],
}

# TF 2.21: variable names and shapes, state_size, output_size.
META = {
    "basic_rnn": ([("rnn/basic_rnn_cell/kernel", [5, 2]), ("rnn/basic_rnn_cell/bias", [2])],
                  2, 2),
    "basic_lstm": ([("rnn/basic_lstm_cell/kernel", [5, 8]), ("rnn/basic_lstm_cell/bias", [8])],
                   rc.LSTMStateTuple(2, 2), 2),
    "basic_lstm_fb_notuple": ([("rnn/basic_lstm_cell/kernel", [5, 8]),
                               ("rnn/basic_lstm_cell/bias", [8])], 4, 2),
    "gru": ([("rnn/gru_cell/gates/kernel", [5, 4]), ("rnn/gru_cell/gates/bias", [4]),
             ("rnn/gru_cell/candidate/kernel", [5, 2]), ("rnn/gru_cell/candidate/bias", [2])],
            2, 2),
    "multi": ([("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel", [5, 8]),
               ("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias", [8]),
               ("rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel", [4, 8]),
               ("rnn/multi_rnn_cell/cell_1/basic_lstm_cell/bias", [8])],
              (rc.LSTMStateTuple(2, 2), rc.LSTMStateTuple(2, 2)), 2),
    "lstm_seqlen": ([("rnn/basic_lstm_cell/kernel", [5, 8]), ("rnn/basic_lstm_cell/bias", [8])],
                    rc.LSTMStateTuple(2, 2), 2),
}

CASES = {
    "basic_rnn": (lambda: rc.BasicRNNCell(2), {}),
    "basic_lstm": (lambda: rc.BasicLSTMCell(2), {}),
    "basic_lstm_fb_notuple": (lambda: rc.BasicLSTMCell(2, forget_bias=0.5,
                                                       state_is_tuple=False),
                              {"initial_state": True}),
    "gru": (lambda: rc.GRUCell(2), {}),
    "multi": (lambda: rc.MultiRNNCell([rc.BasicLSTMCell(2), rc.BasicLSTMCell(2)]), {}),
    "lstm_seqlen": (lambda: rc.BasicLSTMCell(2), {"sequence_length": [2, 3], "grads": False}),
}

# TF 2.21: variables (name, shape) of the priority-3 cases, wrappers and the bidirectional RNN.
VARS_MORE = {
    "lstm_plain": [
        ("rnn/lstm_cell/kernel", [5, 8]),
        ("rnn/lstm_cell/bias", [8]),
    ],
    "lstm_peep_proj_clip": [
        ("rnn/lstm_cell/kernel", [5, 12]),
        ("rnn/lstm_cell/bias", [12]),
        ("rnn/lstm_cell/w_f_diag", [3]),
        ("rnn/lstm_cell/w_i_diag", [3]),
        ("rnn/lstm_cell/w_o_diag", [3]),
        ("rnn/lstm_cell/projection/kernel", [3, 2]),
    ],
    "lstm_notuple": [
        ("rnn/lstm_cell/kernel", [5, 12]),
        ("rnn/lstm_cell/bias", [12]),
        ("rnn/lstm_cell/projection/kernel", [3, 2]),
    ],
    "residual": [
        ("rnn/basic_lstm_cell/kernel", [6, 12]),
        ("rnn/basic_lstm_cell/bias", [12]),
    ],
    "dropout": [
        ("rnn/basic_lstm_cell/kernel", [5, 8]),
        ("rnn/basic_lstm_cell/bias", [8]),
    ],
    "dropout_graphseed": [
        ("rnn/gru_cell/gates/kernel", [5, 4]),
        ("rnn/gru_cell/gates/bias", [4]),
        ("rnn/gru_cell/candidate/kernel", [5, 2]),
        ("rnn/gru_cell/candidate/bias", [2]),
    ],
    "multi_dropout": [
        ("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel", [5, 8]),
        ("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias", [8]),
        ("rnn/multi_rnn_cell/cell_1/basic_rnn_cell/kernel", [4, 2]),
        ("rnn/multi_rnn_cell/cell_1/basic_rnn_cell/bias", [2]),
    ],
    "bidi": [
        ("bidirectional_rnn/fw/basic_lstm_cell/kernel", [5, 8]),
        ("bidirectional_rnn/fw/basic_lstm_cell/bias", [8]),
        ("bidirectional_rnn/bw/gru_cell/gates/kernel", [6, 6]),
        ("bidirectional_rnn/bw/gru_cell/gates/bias", [6]),
        ("bidirectional_rnn/bw/gru_cell/candidate/kernel", [6, 3]),
        ("bidirectional_rnn/bw/gru_cell/candidate/bias", [3]),
    ],
}

# Wrappers add no variable scope: the wrapped cell's variables keep their names.
CASES_MORE = {
    "lstm_plain": (lambda: rc.LSTMCell(2), {}, (rc.LSTMStateTuple(2, 2), 2)),
    "lstm_peep_proj_clip": (
        lambda: rc.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=0.3, proj_clip=0.2),
        {}, (rc.LSTMStateTuple(3, 2), 2)),
    "lstm_notuple": (
        lambda: rc.LSTMCell(3, num_proj=2, state_is_tuple=False, forget_bias=0.3),
        {"initial_state": True}, (5, 2)),
    "residual": (lambda: rc.ResidualWrapper(rc.BasicLSTMCell(3)), {},
                 (rc.LSTMStateTuple(3, 3), 3)),
    "dropout": (lambda: rc.DropoutWrapper(rc.BasicLSTMCell(2), input_keep_prob=0.7,
                                          output_keep_prob=0.6, state_keep_prob=0.8, seed=3),
                {}, (rc.LSTMStateTuple(2, 2), 2)),
    "dropout_graphseed": (
        lambda: rc.DropoutWrapper(rc.GRUCell(2), input_keep_prob=0.5, output_keep_prob=0.7,
                                  state_keep_prob=0.6, seed=11),
        {"seed": 5}, (2, 2)),
    "multi_dropout": (
        lambda: rc.MultiRNNCell([
            rc.DropoutWrapper(rc.BasicLSTMCell(2), output_keep_prob=0.5, seed=1),
            rc.ResidualWrapper(rc.BasicRNNCell(2))]),
        {}, ((rc.LSTMStateTuple(2, 2), 2), 2)),
    "bidi": (lambda: rc.BasicLSTMCell(2), {"bidi": lambda: rc.GRUCell(3)}, None),
}


def _inputs():
    return np.random.RandomState(1).uniform(-1, 1, (3, 2, 3)).astype(np.float32)


def _run(make_cell, initial_state=False, sequence_length=None, grads=True, xs=None,
         bidi=None, seed=None):
    """Builds and runs the case in a fresh graph: (variables, cell, flat results)."""
    with tf.Graph().as_default():
        if seed is not None:
            tf.set_random_seed(seed)
        xs = _inputs() if xs is None else xs
        inputs = [tf.constant(x) for x in xs]
        cell = make_cell()
        kw = {}
        if initial_state:
            kw["initial_state"] = cell.zero_state(2, tf.float32)
        else:
            kw["dtype"] = tf.float32
        if sequence_length is not None:
            kw["sequence_length"] = tf.constant(sequence_length)
        if bidi is not None:
            outs, state_fw, state_bw = tf.nn.static_bidirectional_rnn(cell, bidi(), inputs,
                                                                      **kw)
            state = (state_fw, state_bw)
        else:
            outs, state = tf.nn.static_rnn(cell, inputs, **kw)
        variables = tf.trainable_variables()
        rng = np.random.RandomState(0)
        values = [rng.uniform(-0.5, 0.5, v.shape.as_list()).astype(np.float32)
                  for v in variables]
        loss = tf.add_n([tf.reduce_sum(o * o) for o in outs])
        gradients = tf.gradients(loss, variables) if grads else []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v, a in zip(variables, values):
                v.load(a, sess)
            o, s, g = sess.run([outs, flatten(state), gradients])
    flat = np.concatenate([np.ravel(o)] + [np.ravel(x) for x in s] + [np.ravel(x) for x in g])
    return [(v.op.name, v.shape.as_list()) for v in variables], cell, flat


@pytest.mark.parametrize("case", sorted(CASES))
def test_static_rnn_matches_tf(case):
    make_cell, kw = CASES[case]
    names, cell, flat = _run(make_cell, **kw)
    want_names, state_size, output_size = META[case]
    assert names == want_names
    assert cell.state_size == state_size and cell.output_size == output_size
    np.testing.assert_allclose(flat, EXPECTED[case], rtol=0, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES_MORE))
def test_lstm_cell_wrappers_and_bidirectional_match_tf(case):
    """LSTMCell (peepholes, projection, clipping), DropoutWrapper (TF's masks, from its
    seeds), ResidualWrapper, static_bidirectional_rnn: TF's names, values, gradients."""
    make_cell, kw, sizes = CASES_MORE[case]
    names, cell, flat = _run(make_cell, **kw)
    assert names == [tuple(v) for v in VARS_MORE[case]]
    if sizes is not None:
        assert (cell.state_size, cell.output_size) == sizes
    np.testing.assert_allclose(flat, EXPECTED[case], rtol=0, atol=1e-5)


def test_wrapper_arguments():
    cell = rc.BasicLSTMCell(2)
    with pytest.raises(ValueError, match=r"^Parameter input_keep_prob must be between 0 and 1. Received 1.5$"):
        rc.DropoutWrapper(cell, input_keep_prob=1.5)
    with pytest.raises(ValueError, match=r"^When variational_recurrent=True, dtype must be "
                                         r"provided$"):
        rc.DropoutWrapper(cell, variational_recurrent=True)
    with pytest.raises(ValueError, match=r"input_size must be provided$"):
        rc.DropoutWrapper(cell, variational_recurrent=True, dtype=tf.float32,
                          input_keep_prob=0.5)
    with tf.Graph().as_default():
        state = rc.DropoutWrapper(rc.BasicLSTMCell(2)).zero_state(2, tf.float32)
        assert state.h.op.name.startswith("DropoutWrapperZeroState/BasicLSTMCellZeroState/")


def test_lstm_state_tuple_and_zero_state():
    with tf.Graph().as_default():
        cell = rc.BasicLSTMCell(3)
        state = cell.zero_state(4, tf.float32)
        assert isinstance(state, rc.LSTMStateTuple)
        assert state.c.shape.as_list() == [4, 3] and state.dtype == tf.float32
        assert state.c.op.name.startswith("BasicLSTMCellZeroState/")
        batch = tf.placeholder(tf.int32, [])
        multi = rc.MultiRNNCell([rc.BasicRNNCell(2), rc.GRUCell(5)])
        z = multi.zero_state(batch, tf.float32)
        assert isinstance(z, tuple) and len(z) == 2
        # TF 2.21: MultiRNNCellZeroState/BasicRNNCellZeroState/zeros, shape [None, 2]
        assert [t.op.name for t in z] == ["MultiRNNCellZeroState/BasicRNNCellZeroState/zeros",
                                          "MultiRNNCellZeroState/GRUCellZeroState/zeros"]
        assert z[1].shape.as_list() == [None, 5]
        with tf.Session() as sess:
            a, b = sess.run(list(z), {batch: 3})
        assert a.shape == (3, 2) and b.shape == (3, 5) and not a.any()


def test_static_rnn_errors_and_reuse():
    with tf.Graph().as_default():
        cell = rc.BasicRNNCell(2)
        with pytest.raises(TypeError, match="Argument `inputs` must be a sequence"):
            tf.nn.static_rnn(cell, tf.zeros([2, 3]), dtype=tf.float32)
        with pytest.raises(ValueError, match=r"^Argument `inputs` must not be empty.$"):
            tf.nn.static_rnn(cell, [], dtype=tf.float32)
        with pytest.raises(ValueError, match="argument `dtype` must be specified"):
            tf.nn.static_rnn(cell, [tf.zeros([2, 3])])
        outs, _ = tf.nn.static_rnn(cell, [tf.zeros([2, 3])] * 4, dtype=tf.float32)
        assert len(outs) == 4 and len(tf.trainable_variables()) == 2
        assert outs[0].shape.as_list() == [2, 2]
    with tf.Graph().as_default():
        outs, state = tf.nn.static_rnn(rc.BasicLSTMCell(2), [tf.zeros([2, 3])] * 2,
                                       dtype=tf.float32)
        # TF 2.21: ['rnn/basic_lstm_cell/Mul_2:0', 'rnn/basic_lstm_cell/Mul_5:0']
        assert [o.name for o in outs] == ["rnn/basic_lstm_cell/Mul_2:0",
                                          "rnn/basic_lstm_cell/Mul_5:0"]
        assert state.h.name == "rnn/basic_lstm_cell/Mul_5:0"


def test_checkpoint_from_tf_restores():
    """A TF checkpoint (make_fixture.py) of a 2-layer MultiRNNCell(BasicLSTMCell(4))
    restores by name into scopeflow's cells and gives TF's outputs and states."""
    xs = np.load(os.path.join(FIXTURES, "inputs.npy"))
    expected = np.load(os.path.join(FIXTURES, "expected.npz"))
    with tf.Graph().as_default():
        inputs = [tf.placeholder(tf.float32, [None, 3], name=f"x{t}") for t in range(3)]
        cell = rc.MultiRNNCell([rc.BasicLSTMCell(4) for _ in range(2)])
        outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(FIXTURES, "model.ckpt"))
            outs, st = sess.run([outputs, state], dict(zip(inputs, xs)))
    np.testing.assert_allclose(np.array(outs), expected["outputs"], rtol=0, atol=1e-5)
    for i in range(2):
        np.testing.assert_allclose(st[i].c, expected[f"c{i}"], rtol=0, atol=1e-5)
        np.testing.assert_allclose(st[i].h, expected[f"h{i}"], rtol=0, atol=1e-5)


def test_checkpoint_from_tf_restores_into_dynamic_rnn():
    """The same TF checkpoint (written with static_rnn: the variable names are the same)
    restores into tf.nn.dynamic_rnn's while loop and gives TF's outputs and states."""
    xs = np.load(os.path.join(FIXTURES, "inputs.npy"))  # [time, batch, depth]
    expected = np.load(os.path.join(FIXTURES, "expected.npz"))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 3], name="x")
        cell = rc.MultiRNNCell([rc.BasicLSTMCell(4) for _ in range(2)])
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        assert sorted(v.op.name for v in tf.global_variables()) == sorted(
            json.load(open(os.path.join(FIXTURES, "meta.json")))["variables"])
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(FIXTURES, "model.ckpt"))
            outs, st = sess.run([outputs, state], {x: xs.transpose(1, 0, 2)})
    np.testing.assert_allclose(outs.transpose(1, 0, 2), expected["outputs"], rtol=0,
                               atol=1e-5)
    for i in range(2):
        np.testing.assert_allclose(st[i].c, expected[f"c{i}"], rtol=0, atol=1e-5)
        np.testing.assert_allclose(st[i].h, expected[f"h{i}"], rtol=0, atol=1e-5)
