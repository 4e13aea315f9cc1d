// a stand-in source the bad specs point at
int k(void) { return 0; }
