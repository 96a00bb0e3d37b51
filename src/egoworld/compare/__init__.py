"""A perceived world against its truth (`egoworld world compare`): trajectory, tracking and visibility agreement, and the agreement of the questions built from each."""
