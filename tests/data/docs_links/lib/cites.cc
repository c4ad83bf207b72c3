// The options: docs/guide.md, "Options"; a section it lacks: docs/guide.md, "No such
// section".
