// Merged by @jupyter/builder into its own configuration (package.json: jupyterlab.rspackConfig).
//
// Module ids by name ("./lib/index.js"), not by rspack's default hash: the default hashes the
// container entry's absolute path, so the same source built in two folders (a clone, CI's clone,
// the test's temporary folder) gave two different remoteEntry files. Named ids are relative to the
// package, so the committed build is byte for byte what the source builds to, wherever it is built.
module.exports = {
  optimization: { moduleIds: 'named' }
};
