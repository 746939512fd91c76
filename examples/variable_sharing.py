"""Seeds 000 and 003 on variable sharing: get_variable in variable scopes, reuse, templates.

    python examples/variable_sharing.py
"""

import scopeflow as tf

# Seed 003: nested variable scopes name the variables.
with tf.variable_scope("cnn"):
    with tf.variable_scope("conv1"):
        w = tf.get_variable(initializer=tf.truncated_normal([3, 3, 3, 32], stddev=0.1),
                            trainable=True, name="w")
        b = tf.get_variable(initializer=tf.zeros([32]), trainable=True, name="b")
print(w.name)
print(b.name)

# Seed 000: one set of weights shared by two inputs.
x1 = tf.truncated_normal([200, 100], name="x1")
x2 = tf.truncated_normal([200, 100], name="x2")


def fully_connected(x, output_dim, scope):
    with tf.variable_scope(scope) as scope:
        w = tf.get_variable("weights", [x.shape[1], output_dim],
                            initializer=tf.random_normal_initializer())
        b = tf.get_variable("biases", [output_dim], initializer=tf.constant_initializer(0.0))
        return tf.matmul(x, w) + b


def two_hidden_layers(x):
    h1 = fully_connected(x, 50, "h1")
    h2 = fully_connected(h1, 10, "h2")
    return h2


with tf.variable_scope("two_layers") as scope:
    logits1 = two_hidden_layers(x1)
    scope.reuse_variables()
    logits2 = two_hidden_layers(x2)

print([v.name for v in tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="two_layers")])
print(tf.sharing_report("two_layers"))

# Without reuse, TF1's error (with where the variable was first defined):
try:
    with tf.variable_scope("two_layers"):
        two_hidden_layers(x1)
except ValueError as e:
    print(str(e).splitlines()[0])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out1, out2 = sess.run([logits1, logits2])
    print("two towers, one set of weights:", out1.shape, out2.shape)
